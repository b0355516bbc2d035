//! One error type for the crate. Input errors (unreadable dataset, malformed responses file, a
//! run whose dataset changed) name the file and say what to do; backend and storage errors say
//! what broke. Per-record problems are never errors: they are reported and the run goes on.

anser_errors::crate_error! {
    /// Everything that stops an `omb` command.
    #[derive(Debug, thiserror::Error)]
    pub enum Error {
        path {
            /// A dataset or responses file is unusable as a whole.
            Input,
        }

        /// A setting is invalid (concurrency 0, no judge model, ...).
        #[error("invalid setting: {0}")]
        Setting(String),

        /// `--resume` on a run whose inputs changed.
        #[error("{run}: cannot resume, inputs changed since the run started ({changes}); start a new --run-name")]
        InputsChanged { run: std::path::PathBuf, changes: String },

        /// The LLM endpoint could not be configured.
        #[error(transparent)]
        Llm(#[from] anser_llm::Error),

        /// Run directory, journal or atomic write failure.
        #[error(transparent)]
        Store(#[from] anser_runstore::Error),

        /// Any other I/O error; fs-err already puts the path in the message.
        #[error(transparent)]
        Io(#[from] std::io::Error),
    }
}

impl Error {
    /// True when the user can fix it (exit code 2) rather than a failure of the system (1).
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::Input { .. } | Error::Setting(_) | Error::InputsChanged { .. } => true,
            Error::Llm(e) => e.is_user_error(),
            Error::Store(e) => e.is_user_error(),
            Error::Io(_) => false,
        }
    }
}
