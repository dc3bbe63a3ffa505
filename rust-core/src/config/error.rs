//! Configuration errors: each names the queue, the key and the offending value, so the
//! operator reading `yarn rmadmin -refreshQueues` output knows which line to fix.

use super::xml::XmlError;
use std::fmt;

/// One problem found in a capacity-scheduler configuration.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ConfigError {
    /// The queue path the problem concerns, if any.
    pub queue: Option<String>,
    /// The full property name involved, if any.
    pub key: Option<String>,
    /// What is wrong, including the values involved.
    pub message: String,
}

impl ConfigError {
    /// A problem with one key of one queue.
    pub fn at_queue(queue: &str, key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { queue: Some(queue.to_string()), key: Some(key.into()), message: message.into() }
    }

    /// A problem with a scheduler-wide key.
    pub fn at_key(key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { queue: None, key: Some(key.into()), message: message.into() }
    }

    /// A problem with a queue as a whole.
    pub fn queue(queue: &str, message: impl Into<String>) -> Self {
        ConfigError { queue: Some(queue.to_string()), key: None, message: message.into() }
    }

    /// A problem with the file or the scheduler as a whole.
    pub fn general(message: impl Into<String>) -> Self {
        ConfigError { queue: None, key: None, message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.queue, &self.key) {
            (Some(q), Some(k)) => write!(f, "queue {q}: {k}: {}", self.message),
            (Some(q), None) => write!(f, "queue {q}: {}", self.message),
            (None, Some(k)) => write!(f, "{k}: {}", self.message),
            (None, None) => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<XmlError> for ConfigError {
    fn from(e: XmlError) -> Self {
        ConfigError::general(e.to_string())
    }
}

/// Every problem found in one configuration; it is rejected as a whole.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [one] => write!(f, "{one}"),
            many => {
                write!(f, "{} problems in the capacity scheduler configuration:", many.len())?;
                for e in many {
                    write!(f, "\n  - {e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ConfigErrors {}

impl From<ConfigError> for ConfigErrors {
    fn from(e: ConfigError) -> Self {
        ConfigErrors(vec![e])
    }
}

impl From<XmlError> for ConfigErrors {
    fn from(e: XmlError) -> Self {
        ConfigErrors(vec![e.into()])
    }
}
