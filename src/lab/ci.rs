//! CI reports of a `lab check` ([`super::fixture_check::CheckReport`]): JUnit XML (the
//! Jenkins/Ant shape every CI system renders: `testsuites` > `testsuite` > one `testcase`
//! per fixture, a `failure` whose message is the first difference and whose text lists
//! them all, an `error` for a fixture that is not valid) and GitHub Actions workflow
//! commands (`::error file=…,line=…,title=…::message`, one per failing or invalid fixture).
//!
//! Fixture names, case ids, tool names and paths are untrusted. In XML they are escaped
//! (`& < > " '`; line breaks and tabs in attributes as character references) and the
//! characters XML 1.0 forbids (C0 controls other than tab, line feed and carriage return;
//! U+FFFE, U+FFFF) are dropped. In workflow commands they are sanitised to one line
//! ([`crate::sanitize::line`]) and then escaped as GitHub documents: `%`, `\r`, `\n` in the
//! message, and also `:` and `,` in properties.

use std::fmt::Write as _;

use super::fixture_check::CheckReport;
use crate::error::InputError;

/// The `testsuites` name, and the prefix of every annotation title.
pub const SUITE: &str = "toolscope lab check";

/// True for characters XML 1.0 allows (`Char` production; Rust strings hold no surrogates).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{fffe}' && c != '\u{ffff}')
}

/// Escapes text content: `& < >` (and both quotes, harmless in text), forbidden
/// characters dropped.
pub fn xml_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().filter(|c| xml_char(*c)) {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // a bare CR in text would be normalised away by a parser
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
    out
}

/// Escapes an attribute value: as [`xml_text`], and tab, line feed and carriage return as
/// character references (a parser would normalise them to spaces).
pub fn xml_attr(s: &str) -> String {
    xml_text(s).replace('\t', "&#9;").replace('\n', "&#10;")
}

/// Escapes a workflow command's message (GitHub's `escapeData`).
pub fn github_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value (GitHub's `escapeProperty`).
pub fn github_property(s: &str) -> String {
    github_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One `testcase` (or annotation): what a fixture came to.
struct Case<'a> {
    name: String,
    file: String,
    seconds: f64,
    outcome: Outcome<'a>,
}

enum Outcome<'a> {
    Passed,
    /// The replay differs: every difference, in order.
    Failed(&'a [String]),
    /// The fixture (or the manifest entry) is not valid: nothing was replayed.
    Invalid(&'a InputError),
}

fn cases(rep: &CheckReport) -> Vec<Case<'_>> {
    let mut out: Vec<Case> = rep
        .results
        .iter()
        .map(|r| Case {
            name: r.case_id.clone(),
            file: r.file.display().to_string(),
            seconds: r.seconds,
            outcome: if r.passed() {
                Outcome::Passed
            } else {
                Outcome::Failed(&r.differences)
            },
        })
        .collect();
    out.extend(rep.invalid.iter().map(|e| Case {
        name: if e.place.is_empty() {
            e.file.clone()
        } else {
            format!("{}:{}", e.file, e.place)
        },
        file: e.file.clone(),
        seconds: 0.0,
        outcome: Outcome::Invalid(e),
    }));
    out
}

/// The JUnit XML of a check of the fixture folder `dir` that took `seconds`.
pub fn junit(rep: &CheckReport, dir: &str, seconds: f64) -> String {
    let cases = cases(rep);
    let failures = cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Failed(_)))
        .count();
    let errors = cases
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Invalid(_)))
        .count();
    let counts = format!(
        r#"tests="{}" failures="{failures}" errors="{errors}" skipped="0" time="{seconds:.3}""#,
        cases.len()
    );
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(x, r#"<testsuites name="{SUITE}" {counts}>"#);
    let _ = writeln!(x, r#"  <testsuite name="{}" {counts}>"#, xml_attr(dir));
    if !rep.notes.is_empty() {
        x.push_str("    <properties>\n");
        for n in &rep.notes {
            let _ = writeln!(
                x,
                r#"      <property name="note" value="{}"/>"#,
                xml_attr(n)
            );
        }
        x.push_str("    </properties>\n");
    }
    for c in &cases {
        let _ = write!(
            x,
            r#"    <testcase name="{}" classname="{}" time="{:.3}""#,
            xml_attr(&c.name),
            xml_attr(&c.file),
            c.seconds
        );
        match c.outcome {
            Outcome::Passed => x.push_str("/>\n"),
            Outcome::Failed(d) => {
                let _ = writeln!(
                    x,
                    ">\n      <failure message=\"{}\" type=\"fixture_drift\">{}</failure>\n    </testcase>",
                    xml_attr(d.first().map_or("", String::as_str)),
                    xml_text(&d.join("\n"))
                );
            }
            Outcome::Invalid(e) => {
                let _ = writeln!(
                    x,
                    ">\n      <error message=\"{}\" type=\"invalid_fixture\">{}</error>\n    </testcase>",
                    xml_attr(&e.message),
                    xml_text(&e.to_string())
                );
            }
        }
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

/// The line and column of an error's place when it is `line:column` (or `line`).
fn line_col(place: &str) -> (Option<&str>, Option<&str>) {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match place.split_once(':') {
        Some((l, c)) if digits(l) && digits(c) => (Some(l), Some(c)),
        None if digits(place) => (Some(place), None),
        _ => (None, None),
    }
}

/// The workflow commands of a check: one `::error` per failing fixture (at line 1 of its
/// file, titled with the case id, the message every difference on its own line), one per
/// invalid fixture (at its line and column when the place is one, else line 1), a
/// `::notice` per note, then the summary line as plain text.
pub fn github(rep: &CheckReport) -> String {
    let line = crate::sanitize::line;
    let mut out = String::new();
    for n in &rep.notes {
        let _ = writeln!(
            out,
            "::notice title={}::{}",
            github_property(SUITE),
            github_data(&line(n))
        );
    }
    let mut failed = 0;
    for c in cases(rep) {
        let (title, message, place) = match c.outcome {
            Outcome::Passed => continue,
            Outcome::Failed(d) => {
                failed += 1;
                let n = d.len();
                let lines: Vec<String> = d.iter().map(|x| line(x)).collect();
                (
                    format!(
                        "{SUITE}: {} ({n} difference{})",
                        line(&c.name),
                        if n == 1 { "" } else { "s" }
                    ),
                    lines.join("\n"),
                    "",
                )
            }
            Outcome::Invalid(e) => (
                format!("{SUITE}: invalid fixture"),
                line(&e.to_string()),
                e.place.as_str(),
            ),
        };
        let mut props = format!("file={}", github_property(&line(&c.file)));
        match line_col(place) {
            (Some(l), col) => {
                let _ = write!(props, ",line={l}");
                if let Some(col) = col {
                    let _ = write!(props, ",col={col}");
                }
            }
            (None, _) => props.push_str(",line=1"),
        }
        let _ = writeln!(
            out,
            "::error {props},title={}::{}",
            github_property(&title),
            github_data(&message)
        );
    }
    let _ = writeln!(
        out,
        "{} passed, {failed} failed, {} invalid",
        rep.results.len() - failed,
        rep.invalid.len()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::fixture_check::CheckResult;
    use std::path::PathBuf;

    fn report() -> CheckReport {
        CheckReport {
            results: vec![
                CheckResult {
                    file: PathBuf::from("fx/a.json"),
                    case_id: "a".into(),
                    differences: vec![],
                    seconds: 0.0015,
                },
                CheckResult {
                    file: PathBuf::from("fx/b,1:2.json"),
                    case_id: "b <&> \"q\" 'x' \u{1}\u{7}\u{ffff}end".into(),
                    differences: vec!["t<1> moved from rank 1 to 2".into(), "100% & more".into()],
                    seconds: 0.25,
                },
            ],
            invalid: vec![InputError::new("fx/c.json", "3:7", "expected value".into())],
            notes: vec!["replayed on another graph".into()],
        }
    }

    #[test]
    fn xml_escapes_and_drops_forbidden_characters() {
        assert_eq!(
            xml_text("a<b>&\"'\u{0}\u{8}\u{b}\u{c}\u{1f}\u{fffe}z\u{9}\u{a}"),
            "a&lt;b&gt;&amp;&quot;&apos;z\t\n"
        );
        assert_eq!(xml_attr("x\ty\nz\r"), "x&#9;y&#10;z&#13;");
        // allowed beyond ASCII: kept as they are
        assert_eq!(
            xml_text("주문 \u{7f}\u{85}\u{1f600}"),
            "주문 \u{7f}\u{85}\u{1f600}"
        );
    }

    #[test]
    fn github_escapes_as_documented() {
        assert_eq!(github_data("50%\r\nok: a,b"), "50%25%0D%0Aok: a,b");
        assert_eq!(github_property("50%\r\nok: a,b"), "50%25%0D%0Aok%3A a%2Cb");
    }

    #[test]
    fn junit_counts_and_shapes() {
        let x = junit(&report(), "fx", 1.5);
        assert!(x.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"toolscope lab check\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"1.500\">"), "{x}");
        assert!(
            x.contains(r#"<testcase name="a" classname="fx/a.json" time="0.002"/>"#),
            "{x}"
        );
        assert!(
            x.contains(r#"name="b &lt;&amp;&gt; &quot;q&quot; &apos;x&apos; end""#),
            "{x}"
        );
        assert!(x.contains(r#"<failure message="t&lt;1&gt; moved from rank 1 to 2" type="fixture_drift">t&lt;1&gt; moved from rank 1 to 2
100% &amp; more</failure>"#), "{x}");
        assert!(
            x.contains(r#"<testcase name="fx/c.json:3:7" classname="fx/c.json" time="0.000">"#),
            "{x}"
        );
        assert!(x.contains(r#"<error message="expected value" type="invalid_fixture">fx/c.json:3:7: expected value</error>"#), "{x}");
        assert!(x.contains(r#"<property name="note" value="replayed on another graph"/>"#));
        assert!(!x.contains('\u{1}') && !x.contains('\u{7}') && !x.contains('\u{ffff}'));
    }

    #[test]
    fn github_annotations_per_failure_and_invalid_fixture() {
        let g = github(&report());
        let lines: Vec<&str> = g.lines().collect();
        assert_eq!(lines.len(), 4, "{g}");
        assert_eq!(
            lines[0],
            "::notice title=toolscope lab check::replayed on another graph"
        );
        // the control characters are made visible by the sanitiser, then escaped
        assert_eq!(
            lines[1],
            "::error file=fx/b%2C1%3A2.json,line=1,title=toolscope lab check%3A b <&> \"q\" 'x' \\x01\\x07\u{ffff}end (2 differences)::t<1> moved from rank 1 to 2%0A100%25 & more"
        );
        assert_eq!(
            lines[2],
            "::error file=fx/c.json,line=3,col=7,title=toolscope lab check%3A invalid fixture::fx/c.json:3:7: expected value"
        );
        assert_eq!(lines[3], "1 passed, 1 failed, 1 invalid");
    }
}
