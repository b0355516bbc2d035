#!/usr/bin/env python3
"""The golden loopback mock ($ANSER_SHARED/golden/omb/mock_server.py, imported, not copied) with a
fixed delay before every chat answer, for the throughput harness.

Usage: mock_delay.py --delay-ms 100 --dataset test.jsonl --port 18790
"""

import argparse
import importlib.util
import os
import sys
import time

shared = os.environ.get('ANSER_SHARED', os.path.join(os.path.dirname(__file__), '..', '..', '..', 'shared'))
path = os.path.join(shared, 'golden', 'omb', 'mock_server.py')
spec = importlib.util.spec_from_file_location('mock_server', path)
mock = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mock)

parser = argparse.ArgumentParser()
parser.add_argument('--delay-ms', type=float, required=True)
args, rest = parser.parse_known_args()
delay = args.delay_ms / 1000.0
original = mock.Handler.do_POST


def delayed(self):
    time.sleep(delay)
    original(self)


mock.Handler.do_POST = delayed
# Many concurrent keep-alive connections: a deeper accept queue than the default 5.
mock.ThreadingHTTPServer.request_queue_size = 256
mock.ThreadingHTTPServer.daemon_threads = True
sys.exit(mock.main(rest))
