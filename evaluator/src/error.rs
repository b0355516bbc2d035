//! One error type for the crate. User errors (unreadable result files, bad options, a broken
//! corpus file) name the file and say what to do; internal errors say what broke.

anser_errors::crate_error! {
    /// Everything that can stop an evaluation.
    #[derive(Debug, thiserror::Error)]
    pub enum Error {
        path {
            /// A result file cannot be evaluated (not JSON, wrong shape, a record that is not an object).
            Results => results,
            /// A corpus file the evaluator reads (the regulatory-rule lookup) is malformed.
            CorpusFile,
        }

        /// An option is out of range or inconsistent.
        #[error("invalid evaluation option: {0}")]
        Options(String),

        /// The task files could not be loaded.
        #[error(transparent)]
        Benchmark(#[from] anser_manifest::Error),

        /// The LLM judge could not be set up (endpoint, cache).
        #[error("LLM judge: {0}")]
        Judge(String),

        /// The BERTScore encoder could not be loaded or run.
        #[error("BERTScore: {0}")]
        BertScore(String),

        /// The embedded judge prompts are broken (a bug in this repository).
        #[error("judge prompts are invalid: {0}")]
        Prompts(String),

        /// Any other I/O error; fs-err already puts the path in the message.
        #[error(transparent)]
        Io(#[from] std::io::Error),
    }
}

impl Error {
    /// True when the error comes from user input (exit code 2) rather than from a bug.
    pub fn is_user_error(&self) -> bool {
        match self {
            Self::Results { .. } | Self::CorpusFile { .. } | Self::Options(_) | Self::Judge(_) | Self::BertScore(_) => {
                true
            }
            Self::Benchmark(e) => e.is_user_error(),
            Self::Io(_) => true,
            Self::Prompts(_) => false,
        }
    }
}
