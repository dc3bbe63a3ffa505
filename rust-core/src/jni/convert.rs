//! Reading Java arguments and writing Java results: strings, arrays, and the
//! configuration inputs the shim gathers.

use super::error::{NativeError, NativeResult};
use jni::objects::{JByteArray, JDoubleArray, JIntArray, JLongArray, JObject, JObjectArray, JString, JValue};
use jni::{jni_sig, jni_str, Env};

/// Reads a Java `String` (null is an error naming `what`).
pub fn read_string(env: &Env<'_>, s: &JString<'_>, what: &str) -> NativeResult<String> {
    if s.is_null() {
        return Err(NativeError::InvalidArgument(format!("{what} is null")));
    }
    Ok(s.try_to_string(env)?)
}

/// Reads a Java `String[]` (null reads as empty; null elements are an error).
pub fn read_strings(env: &mut Env<'_>, arr: &JObjectArray<'_, JString<'_>>, what: &str) -> NativeResult<Vec<String>> {
    if arr.is_null() {
        return Ok(Vec::new());
    }
    let n = arr.len(env)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let s = arr.get_element(env, i)?;
        out.push(read_string(env, &s, what)?);
    }
    Ok(out)
}

/// Reads a Java `long[]` (null reads as empty).
pub fn read_longs(env: &Env<'_>, arr: &JLongArray<'_>) -> NativeResult<Vec<i64>> {
    if arr.is_null() {
        return Ok(Vec::new());
    }
    let mut buf = vec![0i64; arr.len(env)?];
    arr.get_region(env, 0, &mut buf)?;
    Ok(buf)
}

/// Reads a Java `int[]` (null reads as empty).
pub fn read_ints(env: &Env<'_>, arr: &JIntArray<'_>) -> NativeResult<Vec<i32>> {
    if arr.is_null() {
        return Ok(Vec::new());
    }
    let mut buf = vec![0i32; arr.len(env)?];
    arr.get_region(env, 0, &mut buf)?;
    Ok(buf)
}

/// Makes a Java `long[]`.
pub fn new_longs<'local>(env: &mut Env<'local>, values: &[i64]) -> NativeResult<JLongArray<'local>> {
    let arr = JLongArray::new(env, values.len())?;
    arr.set_region(env, 0, values)?;
    Ok(arr)
}

/// Makes an `org.capsched.yarn.QueueReport` of the two arrays.
pub fn new_queue_report<'local>(
    env: &mut Env<'local>,
    figures: &[f64],
    counts: &[i64],
) -> NativeResult<JObject<'local>> {
    let doubles = JDoubleArray::new(env, figures.len())?;
    doubles.set_region(env, 0, figures)?;
    let longs = new_longs(env, counts)?;
    let report = env.new_object(
        jni_str!("org/capsched/yarn/QueueReport"),
        jni_sig!("([D[J)V"),
        &[JValue::from(&doubles), JValue::from(&longs)],
    )?;
    Ok(report)
}

/// Makes an `org.capsched.yarn.UserReport` of its three arrays.
pub fn new_user_report<'local>(
    env: &mut Env<'local>,
    names: &[String],
    counts: &[i64],
    weights: &[f64],
) -> NativeResult<JObject<'local>> {
    let names = new_strings(env, names)?;
    let longs = new_longs(env, counts)?;
    let doubles = JDoubleArray::new(env, weights.len())?;
    doubles.set_region(env, 0, weights)?;
    let report = env.new_object(
        jni_str!("org/capsched/yarn/UserReport"),
        jni_sig!("([Ljava/lang/String;[J[D)V"),
        &[JValue::from(&names), JValue::from(&longs), JValue::from(&doubles)],
    )?;
    Ok(report)
}

/// Makes an `org.capsched.yarn.PartitionReport` of its three arrays.
pub fn new_partition_report<'local>(
    env: &mut Env<'local>,
    labels: &[String],
    counts: &[i64],
    figures: &[f64],
) -> NativeResult<JObject<'local>> {
    let labels = new_strings(env, labels)?;
    let longs = new_longs(env, counts)?;
    let doubles = JDoubleArray::new(env, figures.len())?;
    doubles.set_region(env, 0, figures)?;
    let report = env.new_object(
        jni_str!("org/capsched/yarn/PartitionReport"),
        jni_sig!("([Ljava/lang/String;[J[D)V"),
        &[JValue::from(&labels), JValue::from(&longs), JValue::from(&doubles)],
    )?;
    Ok(report)
}

/// Makes an `org.capsched.yarn.ViewReport` of a queue report, a user report and their
/// labelled partitions of one moment.
pub fn new_view_report<'local>(
    env: &mut Env<'local>,
    queues: &JObject<'local>,
    users: &JObject<'local>,
    partitions: &JObject<'local>,
) -> NativeResult<JObject<'local>> {
    let report = env.new_object(
        jni_str!("org/capsched/yarn/ViewReport"),
        jni_sig!("(Lorg/capsched/yarn/QueueReport;Lorg/capsched/yarn/UserReport;Lorg/capsched/yarn/PartitionReport;)V"),
        &[JValue::from(queues), JValue::from(users), JValue::from(partitions)],
    )?;
    Ok(report)
}

/// Makes a Java `String[]`.
pub fn new_strings<'local>(
    env: &mut Env<'local>,
    values: &[String],
) -> NativeResult<JObjectArray<'local, JString<'local>>> {
    let empty = JString::null();
    let arr = JObjectArray::<JString>::new(env, values.len(), &empty)?;
    for (i, s) in values.iter().enumerate() {
        let js = env.new_string(s)?;
        arr.set_element(env, i, &js)?;
    }
    Ok(arr)
}

/// What a configuration is built from, as the shim gathers it: the file's bytes and name,
/// the `yarn.scheduler.capacity.*` keys of the RM's own configuration — those loaded from
/// its files (`base`, which the file overrides, as Apache adds capacity-scheduler.xml on top
/// of them) and those set in code (`overlay`, which win over the file, as Hadoop's overlay
/// does) — and the JVM's system properties for `${var}`; each list as name/value pairs.
pub struct ConfigInputs {
    /// capacity-scheduler.xml's bytes.
    pub xml: Vec<u8>,
    /// Where they came from, for messages.
    pub source: String,
    /// The RM configuration's capacity keys from its files.
    pub base: Vec<String>,
    /// The RM configuration's capacity keys set in code.
    pub overlay: Vec<String>,
    /// System properties.
    pub system: Vec<String>,
}

/// Reads the configuration inputs of `create` and `refresh`.
pub fn read_config_inputs(
    env: &mut Env<'_>,
    xml: &JByteArray<'_>,
    source: &JString<'_>,
    base: &JObjectArray<'_, JString<'_>>,
    overlay: &JObjectArray<'_, JString<'_>>,
    system: &JObjectArray<'_, JString<'_>>,
) -> NativeResult<ConfigInputs> {
    Ok(ConfigInputs {
        xml: env.convert_byte_array(xml)?,
        source: read_string(env, source, "configuration source")?,
        base: read_strings(env, base, "base property")?,
        overlay: read_strings(env, overlay, "overlay property")?,
        system: read_strings(env, system, "system property")?,
    })
}
