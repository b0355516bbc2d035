//! The one shape of a crate error in this workspace, declared once.
//!
//! Every crate has one `thiserror` enum with a `Result` alias, and most of them carry variants
//! that name a file and say what is wrong with it (`{path}: {message}`, built through a
//! `pub(crate)` constructor). Written out by hand, those parts were the same lines in every
//! crate (and drifted: one crate's `Result` alias took no error parameter). [`crate_error!`]
//! writes them; the crate lists only what is its own.
//!
//! The enum's `derive` and its `#[error(transparent)] Io(#[from] std::io::Error)` variant stay
//! in the calling crate: thiserror binds a transparent variant's field with the derive's span
//! and reads it with the attribute's, so a macro-written derive cannot see the field of a
//! caller-written `transparent` variant (and a macro-written one would clash the other way).

/// Declares the crate's `Error` enum and `Result` alias.
///
/// ```
/// anser_errors::crate_error! {
///     /// Everything that can stop this crate.
///     #[derive(Debug, thiserror::Error)]
///     pub enum Error {
///         path {
///             /// An input file is unusable.
///             Input => input,
///             /// An output folder is in the way (no constructor: built in one place).
///             Output,
///         }
///         /// A parameter is out of range.
///         #[error("invalid parameter: {0}")]
///         Param(String),
///         /// Any other I/O error; fs-err already puts the path in the message.
///         #[error(transparent)]
///         Io(#[from] std::io::Error),
///     }
/// }
///
/// let e = Error::input("tasks.json", "not JSON; fix the file");
/// assert_eq!(e.to_string(), "tasks.json: not JSON; fix the file");
/// let io: Result<()> = Err(std::io::Error::other("disk full").into());
/// assert!(matches!(io, Err(Error::Io(_))));
/// ```
///
/// It expands to:
/// - `pub type Result<T, E = Error> = std::result::Result<T, E>;`
/// - the enum with the caller's attributes (its doc and `derive`), each `path` variant as
///   `Variant { path: PathBuf, message: String }` displayed `{path}: {message}`, then the
///   crate's own variants token for token (the last one ends with a comma);
/// - for each `Variant => constructor`, `pub(crate) fn constructor(path, message) -> Error`.
#[macro_export]
macro_rules! crate_error {
    (
        $(#[$($enum_meta:tt)*])*
        pub enum Error {
            path {
                $( $(#[$($path_meta:tt)*])* $path_variant:ident $(=> $constructor:ident)?, )*
            }
            $($variants:tt)*
        }
    ) => {
        /// Result alias for this crate.
        pub type Result<T, E = Error> = std::result::Result<T, E>;

        $(#[$($enum_meta)*])*
        pub enum Error {
            $(
                $(#[$($path_meta)*])*
                #[error("{path}: {message}")]
                $path_variant { path: std::path::PathBuf, message: String },
            )*
            $($variants)*
        }

        impl Error {
            $($(
                /// The error naming `path` and saying what is wrong with it and what to do.
                pub(crate) fn $constructor(
                    path: impl Into<std::path::PathBuf>,
                    message: impl Into<String>,
                ) -> Self {
                    Self::$path_variant { path: path.into(), message: message.into() }
                }
            )?)*
        }
    };
}
