//! Options picked from a short list (`recipe=amp`, `attn=flash`): one enum per
//! option, with its URL spellings in one place so that parsing, writing and error
//! messages cannot disagree.

/// Declares a `Copy` enum whose variants are spelled in URLs as given, with
/// `ALL`, `NAMES`, `name()`, `parse()` (any letter case) and `Default`.
macro_rules! choice {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident = $text:literal,)+
        }
        default $default:ident
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$variant_meta])* $variant,)+
        }

        impl $name {
            /// Every option, in the order forms list them.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];
            /// The URL spellings of [`Self::ALL`], for error messages.
            pub const NAMES: &'static [&'static str] = &[$($text,)+];

            /// The spelling used in URLs and on the command line.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// Reads the URL spelling, in any letter case.
            pub fn parse(text: &str) -> Option<Self> {
                let text = text.trim();
                Self::ALL.iter().copied().find(|c| c.name().eq_ignore_ascii_case(text))
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name::$default
            }
        }
    };
}

pub(crate) use choice;
