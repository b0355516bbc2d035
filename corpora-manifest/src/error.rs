//! One error type for the crate. User errors (bad task files, bad corpora, mapping violations)
//! name the file, the record and the field, and say what to do; internal errors say what broke.

anser_errors::crate_error! {
    /// Everything that can go wrong while loading the manifest, tasks or corpora.
    #[derive(Debug, thiserror::Error)]
    pub enum Error {
        path {
            /// A task file or task record is malformed.
            TaskFile => task_file,
            /// The benchmark directory itself is unusable.
            BenchmarkDir,
            /// A corpus file could not be opened or read.
            Corpus => corpus,
        }

        /// The embedded manifest is inconsistent (a bug in this repository, not in user input).
        #[error("corpora manifest is invalid: {0}")]
        Manifest(String),

        /// A task cannot be mapped to exactly one corpus route.
        #[error("task {id}: {message}")]
        Mapping { id: String, message: String },

        /// A task states its information cutoff in more than one, conflicting way.
        #[error("task {id}: ambiguous information cutoff: {message}")]
        AmbiguousCutoff { id: String, message: String },

        /// A selection filter is invalid or matches nothing.
        #[error("selection: {0}")]
        Selection(String),

        /// Any other I/O error; fs-err already puts the path in the message.
        #[error(transparent)]
        Io(#[from] std::io::Error),
    }
}

impl Error {
    /// True when the error comes from user input (exit code 2) rather than from a bug.
    pub fn is_user_error(&self) -> bool {
        !matches!(self, Self::Manifest(_))
    }
}
