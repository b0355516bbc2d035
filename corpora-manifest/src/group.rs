//! Task groups (`finance_zh_descriptive`, ...): domain × language × split, spelled exactly as the
//! official evaluator prints them (science is always `science_en_*`).

use std::{fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Benchmark domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Domain {
    Legal,
    Finance,
    Science,
}

/// Task language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    Zh,
    En,
}

/// Analytical need (the task file's stem).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    Descriptive,
    Predictive,
    Prescriptive,
}

macro_rules! str_enum {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in canonical order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The lower-case name used in paths, group names and CLI flags.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }
        }

        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    other => Err(format!(
                        "unknown {} {other:?} (expected one of: {})",
                        stringify!($ty).to_lowercase(),
                        [$($name),+].join(", ")
                    )),
                }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

str_enum!(Domain { Legal => "legal", Finance => "finance", Science => "science" });
str_enum!(Language { Zh => "zh", En => "en" });
str_enum!(Split { Descriptive => "descriptive", Predictive => "predictive", Prescriptive => "prescriptive" });

/// One of the 14 task groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskGroup {
    pub domain: Domain,
    pub language: Language,
    pub split: Split,
}

impl TaskGroup {
    /// The 14 groups of the release, in the order the release README lists them.
    pub fn all() -> Vec<TaskGroup> {
        let mut out = Vec::with_capacity(14);
        for &domain in Domain::ALL {
            for &language in Language::ALL {
                for &split in Split::ALL {
                    let group = TaskGroup { domain, language, split };
                    if group.exists() {
                        out.push(group);
                    }
                }
            }
        }
        out
    }

    /// Science is English-only and has no prescriptive split.
    pub fn exists(self) -> bool {
        self.domain != Domain::Science || (self.language == Language::En && self.split != Split::Prescriptive)
    }

    /// The group name as the official evaluator prints it.
    pub fn name(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for TaskGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}_{}", self.domain, self.language, self.split)
    }
}

impl FromStr for TaskGroup {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut parts = s.splitn(3, '_');
        let (Some(d), Some(l), Some(sp)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("task group {s:?} is not <domain>_<language>_<split>"));
        };
        let group = TaskGroup { domain: d.parse()?, language: l.parse()?, split: sp.parse()? };
        if !group.exists() {
            return Err(format!("task group {s:?} does not exist in ANSER"));
        }
        Ok(group)
    }
}

impl Serialize for TaskGroup {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TaskGroup {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fourteen_groups_round_trip() {
        let all = TaskGroup::all();
        assert_eq!(all.len(), 14);
        for g in all {
            assert_eq!(g.name().parse::<TaskGroup>(), Ok(g));
        }
        assert!("science_zh_descriptive".parse::<TaskGroup>().is_err());
        assert!("science_en_prescriptive".parse::<TaskGroup>().is_err());
        assert_eq!(TaskGroup::all()[0].name(), "legal_zh_descriptive");
    }
}
