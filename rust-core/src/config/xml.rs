//! A reader for Hadoop `Configuration` XML files, with Hadoop's rules: `<configuration>`
//! holding `<property>` elements (`name`, `value`, `final`, given as child elements or as
//! attributes), later definitions overriding earlier ones unless the earlier one is final,
//! and `${name}` / `${env.NAME}` expansion on read.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::HashMap;
use std::fmt;

/// Hadoop gives up on variable expansion after this many substitutions (`MAX_SUBST`).
const MAX_SUBSTITUTIONS: usize = 20;

/// A problem in the XML text itself, located by line and column (both from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlError {
    /// The file (or other source) being read.
    pub source: String,
    /// Line of the problem, from 1.
    pub line: usize,
    /// Column of the problem, from 1.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for XmlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.source, self.line, self.column, self.message)
    }
}

impl std::error::Error for XmlError {}

/// One property as defined in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// The raw value, before trimming and expansion.
    value: String,
    /// Set when the definition carried `<final>true</final>`.
    is_final: bool,
}

/// The properties of one or more configuration files, in Hadoop's override order.
#[derive(Debug, Clone, Default)]
pub struct Properties {
    /// Raw definitions by trimmed name.
    entries: HashMap<String, Entry>,
    /// Java system properties, consulted first during `${var}` expansion as Hadoop does.
    system: HashMap<String, String>,
    /// Attempts to override a final property, kept so they can be reported.
    final_overrides: Vec<String>,
}

impl Properties {
    /// An empty set of properties.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one configuration file and layers it over the properties already present.
    pub fn load_xml(&mut self, xml: &[u8], source: &str) -> Result<(), XmlError> {
        for (name, entry) in parse_document(xml, source)? {
            self.define(name, entry.value, entry.is_final);
        }
        Ok(())
    }

    /// Parses one configuration file on its own.
    pub fn from_xml(xml: &[u8], source: &str) -> Result<Self, XmlError> {
        let mut props = Properties::new();
        props.load_xml(xml, source)?;
        Ok(props)
    }

    /// Defines `name`, unless an earlier definition of it was final.
    pub fn define(&mut self, name: String, value: String, is_final: bool) {
        match self.entries.get(&name) {
            Some(existing) if existing.is_final => {
                if existing.value != value {
                    self.final_overrides.push(name);
                }
            }
            _ => {
                self.entries.insert(name, Entry { value, is_final });
            }
        }
    }

    /// Sets a property as code would (`Configuration.set`), never final.
    pub fn set(&mut self, name: &str, value: &str) {
        self.define(name.to_string(), value.to_string(), false);
    }

    /// Supplies the JVM's system properties for `${var}` expansion.
    pub fn set_system_properties(&mut self, system: HashMap<String, String>) {
        self.system = system;
    }

    /// Names whose final definition a later file tried to change.
    pub fn final_overrides(&self) -> &[String] {
        &self.final_overrides
    }

    /// The raw value of `name`, without trimming or expansion (`Configuration.getRaw`).
    pub fn get_raw(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(|e| e.value.as_str())
    }

    /// The value of `name` with `${var}` expanded and white space trimmed
    /// (`Configuration.getTrimmed`).
    pub fn get(&self, name: &str) -> Option<String> {
        self.get_raw(name).map(|raw| self.expand(raw).trim().to_string())
    }

    /// All property names that start with `prefix`.
    pub fn names_with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.entries.keys().filter(move |k| k.starts_with(prefix)).map(String::as_str)
    }

    /// Number of properties defined.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no property is defined.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Expands `${var}` references as Hadoop's `Configuration.substituteVars` does: system
    /// properties first, then other properties; `${env.NAME}`, `${env.NAME:-default}` (default
    /// when unset or empty) and `${env.NAME-default}` (default when unset) read the
    /// environment. An unbound or self-referential variable leaves the text as it is.
    pub fn expand(&self, expr: &str) -> String {
        let mut eval = expr.to_string();
        for _ in 0..MAX_SUBSTITUTIONS {
            let Some((start, end)) = find_variable(&eval) else {
                return eval;
            };
            let var = &eval[start..end];
            let value = self.lookup_variable(var);
            let Some(value) = value else {
                return eval;
            };
            let reference = &eval[start - 2..end + 1];
            if value.contains(reference) {
                return expr.to_string();
            }
            eval = format!("{}{}{}", &eval[..start - 2], value, &eval[end + 1..]);
        }
        // Hadoop throws here; a value nobody can expand is left as written so the key that
        // reads it reports the problem with the offending text.
        eval
    }

    fn lookup_variable(&self, var: &str) -> Option<String> {
        let from_env = var.strip_prefix("env.").filter(|v| !v.is_empty()).map(|spec| {
            if let Some(i) = spec.find(":-") {
                match std::env::var(&spec[..i]) {
                    Ok(v) if !v.is_empty() => v,
                    _ => spec[i + 2..].to_string(),
                }
            } else if let Some(i) = spec.find('-') {
                std::env::var(&spec[..i]).unwrap_or_else(|_| spec[i + 1..].to_string())
            } else {
                std::env::var(spec).unwrap_or_default()
            }
        });
        let from_env = match from_env {
            // `${env.X}` with X unset falls through to properties, like Hadoop's null.
            Some(v) if v.is_empty() && !var.contains('-') => None,
            other => other,
        };
        from_env
            .or_else(|| self.system.get(var).cloned())
            .or_else(|| self.get_raw(var).map(str::to_string))
    }
}

/// Finds the first `${name}` whose name is non-empty and holds no `$`, `{`, `}` or space.
/// Returns the byte range of the name.
fn find_variable(s: &str) -> Option<(usize, usize)> {
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(rel) = s[from..].find("${") {
        let start = from + rel + 2;
        let mut end = start;
        while end < bytes.len() && !matches!(bytes[end], b'$' | b'{' | b'}' | b' ') {
            end += 1;
        }
        if end < bytes.len() && bytes[end] == b'}' && end > start {
            return Some((start, end));
        }
        from = start;
    }
    None
}

/// Where a byte offset falls, as (line, column), both from 1.
fn line_and_column(xml: &[u8], offset: usize) -> (usize, usize) {
    let upto = &xml[..offset.min(xml.len())];
    let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = upto.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, column)
}

/// Which child of `<property>` the text being read belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Name,
    Value,
    Final,
    Other,
}

/// A `<property>` being read.
#[derive(Default)]
struct PendingProperty {
    name: Option<String>,
    value: Option<String>,
    is_final: bool,
}

/// Parses a whole document into (name, entry) pairs in file order.
fn parse_document(xml: &[u8], source: &str) -> Result<Vec<(String, Entry)>, XmlError> {
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().check_end_names = true;
    let error_at = |offset: usize, message: String| {
        let (line, column) = line_and_column(xml, offset);
        XmlError { source: source.to_string(), line, column, message }
    };

    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    let mut property: Option<PendingProperty> = None;
    let mut field = Field::Other;
    let mut text = String::new();
    let mut buf = Vec::new();

    loop {
        let offset = reader.buffer_position() as usize;
        let event = reader.read_event_into(&mut buf).map_err(|e| {
            error_at(reader.error_position() as usize, format!("malformed XML: {e}"))
        })?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let is_empty = matches!(event, Event::Empty(_));
                let tag = element_name(e);
                match depth {
                    0 => {
                        if tag != "configuration" {
                            return Err(error_at(
                                offset,
                                format!("the top-level element is <{tag}>; a Hadoop configuration file starts with <configuration>"),
                            ));
                        }
                        seen_root = true;
                    }
                    1 if tag == "property" => {
                        let mut p = PendingProperty::default();
                        read_property_attributes(e, &mut p)
                            .map_err(|m| error_at(offset, m))?;
                        if is_empty {
                            finish_property(p, &mut out);
                        } else {
                            property = Some(p);
                        }
                    }
                    1 if tag == "include" || tag.ends_with(":include") => {
                        return Err(error_at(
                            offset,
                            "XInclude (<xi:include>) is not supported in capacity-scheduler.xml; inline the included properties".to_string(),
                        ));
                    }
                    2 if property.is_some() => {
                        field = match tag.as_str() {
                            "name" => Field::Name,
                            "value" => Field::Value,
                            "final" => Field::Final,
                            _ => Field::Other,
                        };
                        text.clear();
                        if is_empty {
                            store_field(property.as_mut(), field, "");
                            field = Field::Other;
                        }
                    }
                    _ => {}
                }
                if !is_empty {
                    depth += 1;
                }
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                match depth {
                    2 => {
                        store_field(property.as_mut(), field, &text);
                        field = Field::Other;
                        text.clear();
                    }
                    1 => {
                        if let Some(p) = property.take() {
                            finish_property(p, &mut out);
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(t) => {
                if field != Field::Other {
                    let decoded = t.decode().map_err(|e| error_at(offset, format!("bad text: {e}")))?;
                    text.push_str(&decoded);
                } else if depth <= 1 && !t.decode().map(|s| s.trim().is_empty()).unwrap_or(true) {
                    return Err(error_at(offset, "text outside any <property>".to_string()));
                }
            }
            Event::CData(t) => {
                if field != Field::Other {
                    let decoded = t.decode().map_err(|e| error_at(offset, format!("bad CDATA: {e}")))?;
                    text.push_str(&decoded);
                }
            }
            Event::GeneralRef(r) => {
                if field != Field::Other {
                    text.push(resolve_entity(&r).map_err(|m| error_at(offset, m))?);
                }
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
        buf.clear();
    }
    if !seen_root {
        return Err(error_at(xml.len(), "no <configuration> element: the file is empty".to_string()));
    }
    if depth != 0 {
        return Err(error_at(xml.len(), "unexpected end of file: an element is not closed".to_string()));
    }
    Ok(out)
}

fn element_name(e: &BytesStart<'_>) -> String {
    String::from_utf8_lossy(e.name().as_ref()).into_owned()
}

fn read_property_attributes(e: &BytesStart<'_>, p: &mut PendingProperty) -> Result<(), String> {
    for attr in e.attributes() {
        let attr = attr.map_err(|err| format!("bad attribute on <property>: {err}"))?;
        let value = attr
            .unescape_value()
            .map_err(|err| format!("bad attribute value on <property>: {err}"))?
            .into_owned();
        match attr.key.as_ref() {
            b"name" => p.name = Some(value),
            b"value" => p.value = Some(value),
            b"final" => p.is_final = value.trim() == "true",
            _ => {}
        }
    }
    Ok(())
}

fn store_field(property: Option<&mut PendingProperty>, field: Field, text: &str) {
    let Some(p) = property else { return };
    match field {
        Field::Name => p.name = Some(text.to_string()),
        Field::Value => p.value = Some(text.to_string()),
        Field::Final => p.is_final = text.trim() == "true",
        Field::Other => {}
    }
}

fn finish_property(p: PendingProperty, out: &mut Vec<(String, Entry)>) {
    // Hadoop ignores a property without a name or without a value.
    if let (Some(name), Some(value)) = (p.name, p.value) {
        let name = name.trim().to_string();
        if !name.is_empty() {
            out.push((name, Entry { value, is_final: p.is_final }));
        }
    }
}

fn resolve_entity(r: &quick_xml::events::BytesRef<'_>) -> Result<char, String> {
    if let Some(c) = r.resolve_char_ref().map_err(|e| format!("bad character reference: {e}"))? {
        return Ok(c);
    }
    let name = r.decode().map_err(|e| format!("bad entity: {e}"))?;
    match name.as_ref() {
        "amp" => Ok('&'),
        "lt" => Ok('<'),
        "gt" => Ok('>'),
        "quot" => Ok('"'),
        "apos" => Ok('\''),
        other => Err(format!("unknown entity &{other};")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(xml: &str) -> Properties {
        Properties::from_xml(xml.as_bytes(), "test.xml").expect("valid XML")
    }

    #[test]
    fn reads_elements_attributes_comments_and_entities() {
        let p = parse(
            r#"<?xml version="1.0"?>
            <?xml-stylesheet type="text/xsl" href="configuration.xsl"?>
            <!-- a comment -->
            <configuration>
              <property>
                <name> a.b </name>
                <value> 10 </value>
                <description>ignored</description>
              </property>
              <property name="c" value="x &amp; y"/>
              <property><name>d</name><value><![CDATA[<raw>]]></value></property>
              <property><name>e</name><value/></property>
              <property><name>no.value</name></property>
            </configuration>"#,
        );
        assert_eq!(p.get("a.b").as_deref(), Some("10"));
        assert_eq!(p.get_raw("a.b"), Some(" 10 "));
        assert_eq!(p.get("c").as_deref(), Some("x & y"));
        assert_eq!(p.get("d").as_deref(), Some("<raw>"));
        assert_eq!(p.get("e").as_deref(), Some(""));
        assert_eq!(p.get("no.value"), None);
    }

    #[test]
    fn later_definitions_override_unless_final() {
        let p = parse(
            "<configuration>
               <property><name>x</name><value>1</value></property>
               <property><name>x</name><value>2</value></property>
               <property><name>y</name><value>1</value><final>true</final></property>
               <property><name>y</name><value>2</value></property>
             </configuration>",
        );
        assert_eq!(p.get("x").as_deref(), Some("2"));
        assert_eq!(p.get("y").as_deref(), Some("1"));
        assert_eq!(p.final_overrides(), ["y".to_string()]);
    }

    #[test]
    fn expands_variables_like_hadoop() {
        std::env::set_var("CAPSCHED_TEST_ENV", "from-env");
        std::env::remove_var("CAPSCHED_TEST_UNSET");
        let mut p = parse(
            "<configuration>
               <property><name>base</name><value>root</value></property>
               <property><name>q</name><value>${base}.a</value></property>
               <property><name>env</name><value>${env.CAPSCHED_TEST_ENV}</value></property>
               <property><name>dflt</name><value>${env.CAPSCHED_TEST_UNSET:-fallback}</value></property>
               <property><name>unbound</name><value>${nope}x</value></property>
               <property><name>loop</name><value>${loop}</value></property>
               <property><name>sys</name><value>${user.name}</value></property>
             </configuration>",
        );
        p.set_system_properties([("user.name".to_string(), "yarn".to_string())].into());
        assert_eq!(p.get("q").as_deref(), Some("root.a"));
        assert_eq!(p.get("env").as_deref(), Some("from-env"));
        assert_eq!(p.get("dflt").as_deref(), Some("fallback"));
        assert_eq!(p.get("unbound").as_deref(), Some("${nope}x"));
        assert_eq!(p.get("loop").as_deref(), Some("${loop}"));
        assert_eq!(p.get("sys").as_deref(), Some("yarn"));
    }

    #[test]
    fn malformed_xml_names_line_and_column() {
        let err = Properties::from_xml(
            b"<configuration>\n  <property>\n    <name>a</nam>\n  </property>\n</configuration>",
            "capacity-scheduler.xml",
        )
        .unwrap_err();
        assert_eq!(err.source, "capacity-scheduler.xml");
        assert_eq!(err.line, 3);
        assert!(err.message.contains("malformed XML"), "{err}");
    }

    #[test]
    fn wrong_root_and_empty_files_are_errors() {
        let err = Properties::from_xml(b"<conf></conf>", "f.xml").unwrap_err();
        assert!(err.message.contains("<configuration>"), "{err}");
        let err = Properties::from_xml(b"", "f.xml").unwrap_err();
        assert!(err.message.contains("empty"), "{err}");
        let err = Properties::from_xml(b"<configuration><property>", "f.xml").unwrap_err();
        assert!(err.to_string().starts_with("f.xml:1:"), "{err}");
    }
}
