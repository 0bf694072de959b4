//! Reading Prometheus's text format, as a scrape of `/metrics` returns it.

use std::collections::BTreeMap;

/// One sample: the series name, its labels and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// A parsed scrape.
#[derive(Debug, Clone)]
pub struct Scrape {
    pub samples: Vec<Sample>,
    /// `# TYPE` lines: metric family name → type.
    pub types: BTreeMap<String, String>,
    pub text: String,
}

impl Scrape {
    /// Parses Prometheus's text format (0.0.4). Panics on a line it cannot read: the
    /// format is the contract with Prometheus.
    pub fn parse(text: &str) -> Self {
        let mut samples = Vec::new();
        let mut types = BTreeMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').expect("a TYPE line names a type");
                types.insert(name.to_owned(), kind.to_owned());
                continue;
            }
            if line.starts_with('#') {
                continue;
            }
            samples.push(parse_sample(line));
        }
        Self {
            samples,
            types,
            text: text.to_owned(),
        }
    }

    /// The samples of series `name` whose labels include every pair of `labels`.
    pub fn matching<'a>(
        &'a self,
        name: &'a str,
        labels: &'a [(&'a str, &'a str)],
    ) -> impl Iterator<Item = &'a Sample> + 'a {
        self.samples.iter().filter(move |s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
    }

    /// The sum of the values of [`Scrape::matching`] samples; `None` when there is none.
    pub fn sum(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let mut found = false;
        let total = self
            .matching(name, labels)
            .inspect(|_| found = true)
            .map(|s| s.value)
            .sum();
        found.then_some(total)
    }
}

fn parse_sample(line: &str) -> Sample {
    let (series, value) = line.rsplit_once(' ').expect("a sample line has a value");
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v
            .parse()
            .unwrap_or_else(|_| panic!("a sample's value: {line}")),
    };
    let (name, labels) = match series.split_once('{') {
        None => (series, BTreeMap::new()),
        Some((name, rest)) => {
            let body = rest.strip_suffix('}').expect("labels end with }");
            (name, parse_labels(body, line))
        }
    };
    Sample {
        name: name.to_owned(),
        labels,
        value,
    }
}

/// `k="v",k2="v2"` with `\"`, `\\` and `\n` escapes in values.
fn parse_labels(body: &str, line: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    let mut chars = body.chars().peekable();
    loop {
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        if key.is_empty() {
            break;
        }
        assert_eq!(chars.next(), Some('"'), "a label value is quoted: {line}");
        let mut value = String::new();
        loop {
            match chars.next() {
                Some('\\') => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some(c) => value.push(c),
                    None => panic!("a dangling escape: {line}"),
                },
                Some('"') => break,
                Some(c) => value.push(c),
                None => panic!("an unterminated label value: {line}"),
            }
        }
        labels.insert(key.trim_start_matches(',').to_owned(), value);
        if chars.peek() == Some(&',') {
            chars.next();
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_labels_values_and_types() {
        let scrape = Scrape::parse(
            "# HELP x_total X.\n# TYPE x_total counter\nx_total{a=\"1\",b=\"q\\\"uote\"} 3\ny 1.5\nz_bucket{le=\"+Inf\"} 2\n",
        );
        assert_eq!(scrape.types["x_total"], "counter");
        assert_eq!(scrape.sum("x_total", &[("b", "q\"uote")]), Some(3.0));
        assert_eq!(scrape.sum("y", &[]), Some(1.5));
        assert_eq!(scrape.sum("z_bucket", &[("le", "+Inf")]), Some(2.0));
        assert_eq!(scrape.sum("x_total", &[("a", "2")]), None);
    }
}
