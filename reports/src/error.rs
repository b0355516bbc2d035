//! One error type for the crate. User errors (a run directory that is missing a file, a file
//! that is not what `anser run` writes, bad parameters) name the path or field and say what to
//! do; internal errors say what broke.

anser_errors::crate_error! {
    /// Everything that can stop a comparison, a report or an export.
    #[derive(Debug, thiserror::Error)]
    pub enum Error {
        path {
            /// A run directory or one of its files is missing or malformed.
            RunFile => run_file,
        }

        /// A parameter is out of range or inconsistent (resamples, baseline name, formats).
        #[error("{0}")]
        Param(String),

        /// The evaluator could not recompute an evaluation.
        #[error(transparent)]
        Evaluator(#[from] anser_evaluator::Error),

        /// A chart could not be drawn (a bug in this crate, not in the data).
        #[error("cannot draw chart {chart}: {message}")]
        Chart { chart: String, message: String },

        /// Any other I/O error; fs-err already puts the path in the message.
        #[error(transparent)]
        Io(#[from] std::io::Error),
    }
}

impl Error {
    /// True when the error comes from user input (exit code 2) rather than from a bug.
    pub fn is_user_error(&self) -> bool {
        match self {
            Self::RunFile { .. } | Self::Param(_) | Self::Io(_) => true,
            Self::Evaluator(e) => e.is_user_error(),
            Self::Chart { .. } => false,
        }
    }
}
