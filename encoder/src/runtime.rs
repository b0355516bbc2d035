//! The process-wide ONNX Runtime environment. `ort` allows one environment per process and
//! loads the shared library once, so every [`crate::Encoder`] shares the environment created
//! here on first use.

use std::{
    path::{Path, PathBuf},
    sync::{Mutex, OnceLock},
};

use ort::environment::Environment;

use crate::{Error, Result};

/// Environment variable naming the ONNX Runtime shared library (the same one `ort` reads).
pub const ORT_DYLIB_ENV: &str = "ORT_DYLIB_PATH";

static ENVIRONMENT: OnceLock<Environment> = OnceLock::new();
static INIT_LOCK: Mutex<()> = Mutex::new(());

/// The library to load: `explicit` if given, else `$ORT_DYLIB_PATH`, else `None`.
pub fn ort_library_path(explicit: Option<&Path>) -> Option<PathBuf> {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(ORT_DYLIB_ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
}

/// The shared environment, loading the library on first call. Later calls return the same
/// environment whatever library they name (a process can hold only one ONNX Runtime).
pub(crate) fn environment(explicit: Option<&Path>) -> Result<&'static Environment> {
    if let Some(env) = ENVIRONMENT.get() {
        return Ok(env);
    }
    let _guard = INIT_LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(env) = ENVIRONMENT.get() {
        return Ok(env);
    }
    let path = ort_library_path(explicit).ok_or(Error::NoOrtLibrary)?;
    if !path.is_file() {
        return Err(Error::OrtLoad { path, message: "no such file".into() });
    }
    let builder = ort::init_from(&path).map_err(|e| Error::OrtLoad { path: path.clone(), message: e.to_string() })?;
    let env = builder.with_name("anser").build().map_err(|e| Error::OrtLoad { path, message: e.to_string() })?;
    Ok(ENVIRONMENT.get_or_init(|| env))
}
