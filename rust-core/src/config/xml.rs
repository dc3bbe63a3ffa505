//! A reader for Hadoop `Configuration` XML files, with Hadoop's rules: `<configuration>`
//! holding `<property>` elements (`name`, `value`, `final`, given as child elements or as
//! attributes), later definitions overriding earlier ones unless the earlier one is final,
//! and `${name}` / `${env.NAME}` expansion on read.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, HashMap};
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
    /// The raw value, before trimming and expansion; None for a property defined without a
    /// value, which Hadoop ignores except for its `final` mark.
    value: Option<String>,
}

/// The properties of one or more configuration files, in Hadoop's override order.
#[derive(Debug, Clone, Default)]
pub struct Properties {
    /// Raw definitions by trimmed name. A scheduler's configuration looks up dozens of
    /// keys a queue, most of them unset, whose names share a long prefix: hashed, not
    /// compared along a tree.
    entries: FxHashMap<String, Entry>,
    /// The names defined, in name order (so names with a prefix are a range).
    names: BTreeSet<String>,
    /// Java system properties, consulted first during `${var}` expansion as Hadoop does.
    system: HashMap<String, String>,
    /// Names marked final: later definitions are ignored.
    finals: std::collections::HashSet<String>,
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
        for parsed in parse_document(xml, source)? {
            match parsed.value {
                Some(value) => self.define(parsed.name, value, parsed.is_final),
                None if parsed.is_final => self.mark_final(&parsed.name),
                None => {}
            }
        }
        Ok(())
    }

    /// Parses one configuration file on its own.
    pub fn from_xml(xml: &[u8], source: &str) -> Result<Self, XmlError> {
        let mut props = Properties::new();
        props.load_xml(xml, source)?;
        Ok(props)
    }

    /// Defines `name`, unless it was marked final before; a final definition marks it.
    pub fn define(&mut self, name: String, value: String, is_final: bool) {
        if self.finals.contains(&name) {
            if self.entries.get(&name).and_then(|e| e.value.as_deref()) != Some(value.as_str()) {
                self.final_overrides.push(name);
            }
            return;
        }
        if is_final {
            self.finals.insert(name.clone());
        }
        self.insert(name, value);
    }

    fn insert(&mut self, name: String, value: String) {
        if !self.names.contains(&name) {
            self.names.insert(name.clone());
        }
        self.entries.insert(name, Entry { value: Some(value) });
    }

    fn mark_final(&mut self, name: &str) {
        self.finals.insert(name.to_string());
    }

    /// Sets a property as code would (`Configuration.set`), never final.
    pub fn set(&mut self, name: &str, value: &str) {
        self.define(name.to_string(), value.to_string(), false);
    }

    /// Sets a property over everything loaded before or after, finals included, as
    /// Hadoop's overlay holds what code `set` on a Configuration.
    pub fn overlay(&mut self, name: &str, value: &str) {
        self.insert(name.to_string(), value.to_string());
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
        self.entries.get(name).and_then(|e| e.value.as_deref())
    }

    /// The value of `name` with `${var}` expanded and white space trimmed
    /// (`Configuration.getTrimmed`).
    pub fn get(&self, name: &str) -> Option<String> {
        self.get_raw(name).map(|raw| self.expand(raw).trim().to_string())
    }

    /// All property names that start with `prefix`.
    pub fn names_with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.names
            .range::<str, _>((std::ops::Bound::Included(prefix), std::ops::Bound::Unbounded))
            .take_while(move |k| k.starts_with(prefix))
            .filter(|k| self.get_raw(k).is_some())
            .map(String::as_str)
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
        from_env.or_else(|| self.system.get(var).cloned()).or_else(|| self.get_raw(var).map(str::to_string))
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

/// The property being assembled, as Hadoop's `Configuration.Parser` tracks it.
#[derive(Default)]
struct ParserState {
    name: Option<String>,
    value: Option<String>,
    is_final: bool,
    /// Text since the last `<name>`, `<value>`, `<final>`, `<source>` or `<tag>` began.
    token: String,
    /// Set by the first such element; Hadoop never clears it.
    collecting: bool,
}

/// One `<property>` as the file defines it.
struct ParsedProperty {
    name: String,
    value: Option<String>,
    is_final: bool,
}

/// Parses a whole document into its properties, in file order.
///
/// This follows Hadoop's parser exactly, quirks included, so a file means the same thing to
/// both: elements are matched by local name wherever they are nested; `<property>` starts a
/// new property (attributes `name`, `value`, `final` allowed); the end of `<name>` sets the
/// (trimmed) name and the end of `<value>` the value, unless their text is empty; `final`
/// must be exactly `true`; a property without a name or a value is dropped. The root
/// element's name is not checked. Only well-formedness errors reject a file.
fn parse_document(xml: &[u8], source: &str) -> Result<Vec<ParsedProperty>, XmlError> {
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().check_end_names = true;
    let error_at = |offset: usize, message: String| {
        let (line, column) = line_and_column(xml, offset);
        XmlError { source: source.to_string(), line, column, message }
    };

    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut roots = 0usize;
    let mut st = ParserState::default();
    let mut buf = Vec::new();

    loop {
        let offset = reader.buffer_position() as usize;
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| error_at(reader.error_position() as usize, format!("malformed XML: {e}")))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                if depth == 0 {
                    roots += 1;
                    if roots > 1 {
                        return Err(error_at(offset, "malformed XML: a second top-level element; a configuration file has one <configuration> element holding every <property>".to_string()));
                    }
                }
                let is_empty = matches!(event, Event::Empty(_));
                let name = local_name(e);
                match name.as_str() {
                    "property" => {
                        st.name = None;
                        st.value = None;
                        st.is_final = false;
                        read_property_attributes(e, &mut st).map_err(|m| error_at(offset, m))?;
                    }
                    "name" | "value" | "final" | "source" | "tag" => {
                        st.collecting = true;
                        st.token.clear();
                    }
                    "include" => {
                        return Err(error_at(
                            offset,
                            "XInclude (<xi:include>) is not supported in capacity-scheduler.xml; inline the included properties".to_string(),
                        ));
                    }
                    _ => {}
                }
                if is_empty {
                    end_element(&name, &mut st, &mut out);
                } else {
                    depth += 1;
                }
            }
            Event::End(ref e) => {
                depth = depth.saturating_sub(1);
                let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                end_element(&name, &mut st, &mut out);
            }
            Event::Text(t) => {
                let text = t.decode().map_err(|e| error_at(offset, format!("bad text: {e}")))?;
                if depth == 0 && !text.trim().is_empty() {
                    return Err(error_at(offset, "malformed XML: text outside the top-level element".to_string()));
                }
                if st.collecting {
                    st.token.push_str(&text);
                }
            }
            Event::CData(t) => {
                if st.collecting {
                    let text = t.decode().map_err(|e| error_at(offset, format!("bad CDATA: {e}")))?;
                    st.token.push_str(&text);
                }
            }
            Event::GeneralRef(r) => {
                let c = resolve_entity(&r).map_err(|m| error_at(offset, m))?;
                if st.collecting {
                    st.token.push(c);
                }
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
        buf.clear();
    }
    if roots == 0 {
        return Err(error_at(xml.len(), "malformed XML: the file has no elements (is it empty?)".to_string()));
    }
    if depth != 0 {
        return Err(error_at(xml.len(), "malformed XML: unexpected end of file; an element is not closed".to_string()));
    }
    Ok(out)
}

fn local_name(e: &BytesStart<'_>) -> String {
    String::from_utf8_lossy(e.local_name().as_ref()).into_owned()
}

fn end_element(name: &str, st: &mut ParserState, out: &mut Vec<ParsedProperty>) {
    match name {
        "name" if !st.token.is_empty() => st.name = Some(st.token.trim().to_string()),
        "value" if !st.token.is_empty() => st.value = Some(st.token.clone()),
        "final" => st.is_final = st.token == "true",
        "property" => {
            if let Some(name) = st.name.clone() {
                out.push(ParsedProperty { name, value: st.value.clone(), is_final: st.is_final });
            }
        }
        _ => {}
    }
}

fn read_property_attributes(e: &BytesStart<'_>, st: &mut ParserState) -> Result<(), String> {
    for attr in e.attributes() {
        let attr = attr.map_err(|err| format!("malformed XML: bad attribute on <property>: {err}"))?;
        let value = attr
            .unescape_value()
            .map_err(|err| format!("malformed XML: bad attribute value on <property>: {err}"))?
            .into_owned();
        match attr.key.local_name().as_ref() {
            b"name" => st.name = Some(value),
            b"value" => st.value = Some(value),
            b"final" => st.is_final = value == "true",
            _ => {}
        }
    }
    Ok(())
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
        // Hadoop drops a property whose value is empty or missing.
        assert_eq!(p.get("e"), None);
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
    fn only_well_formedness_rejects_a_file() {
        // Like Hadoop, the root element's name is not checked.
        let p = parse("<conf><property><name>a</name><value>1</value></property></conf>");
        assert_eq!(p.get("a").as_deref(), Some("1"));
        let err = Properties::from_xml(b"", "f.xml").unwrap_err();
        assert!(err.message.contains("empty"), "{err}");
        let err = Properties::from_xml(b"<configuration><property>", "f.xml").unwrap_err();
        assert!(err.to_string().starts_with("f.xml:1:"), "{err}");
        let err = Properties::from_xml(b"<property/><property/>", "f.xml").unwrap_err();
        assert!(err.message.contains("second top-level element"), "{err}");
    }

    #[test]
    fn follows_hadoops_flat_parser_on_odd_structures() {
        // Ambari's files nest <value> and <property> elements inside a property; Hadoop's
        // parser matches elements by name at any depth, so the last <value> wins and a
        // nested <property> starts over.
        let p = parse(
            "<configuration a='1'>
               <description>stray text</description>
               <property>
                 <name>x</name><value>real</value>
                 <value-attributes><entries><entry><value>nested</value></entry></entries></value-attributes>
                 # shell-style junk after the value
               </property>
               <property><name>
  y.with.newline
  </name><value>1</value><final> true</final></property>
               <property><name>y.with.newline</name><value>2</value></property>
             </configuration>",
        );
        assert_eq!(p.get("x").as_deref(), Some("nested"));
        assert_eq!(p.get("y.with.newline").as_deref(), Some("2"), "final must be exactly 'true'");
    }
}
