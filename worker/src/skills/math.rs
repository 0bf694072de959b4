//! `MathSkill` (seed Gesahni): arithmetic answered without the model.
//!
//! A message is math when it is an expression as a whole (give or take "what is" and a
//! question mark: numbers, `+ - * / ^ % x × ÷`, parentheses, `sqrt abs floor ceil round
//! ln log sin cos tan exp min max pi`, one comparison) or matches one of the seed's three
//! patterns (`a op b`, `25% of 100`, `round 3.14159 to 2 decimal`). The expression is
//! evaluated by `evalexpr` in a context with its built-in functions disabled and only
//! the functions above registered, on floating-point numbers (every literal is made a
//! float, so `7/2` is 3.5): no code runs, nothing is assigned.
//!
//! As in the seed, the whole request is tried first and the matched pattern is the
//! fallback; what neither understands is answered with [`HELP`], never passed on to the
//! model (the router already chose this skill; bouncing back would loop).

use std::sync::LazyLock;

use async_trait::async_trait;
use evalexpr::{
    Context, ContextWithMutableFunctions, ContextWithMutableVariables, DefaultNumericTypes,
    Function, HashMapContext, Value,
};
use regex::Regex;

use parley_protocol::config::SkillName;

use super::{Found, Skill, SkillContext, SkillError, request_span};

/// The answer to math that cannot be parsed.
pub const HELP: &str = "I couldn't parse that as math. Try like: 3*3=9, 2^3, sqrt(16).";
/// The answer to a division by zero.
pub const DIVIDE_BY_ZERO: &str = "Cannot divide by zero";
/// Longer messages are not tried as one expression.
const MAX_EXPRESSION_CHARS: usize = 200;

/// The whole-request path, then the seed's three patterns in its order.
static PATTERNS: LazyLock<[Regex; 4]> = LazyLock::new(|| {
    [
        r"(?i)^\s*(?:(?:what\s+is|what's|whats|how\s+much\s+is|calculate|compute|evaluate)\s*:?\s+)?(?P<expr>.+?)[\s?!.]*$",
        r"(?i)(?P<a>\d+(?:\.\d+)?)\s*(?P<op>[+\-*/x×])\s*(?P<b>\d+(?:\.\d+)?)",
        r"(?i)(?P<pct>\d+(?:\.\d+)?)%\s*of\s*(?P<of>\d+(?:\.\d+)?)",
        r"(?i)round\s+(?P<val>\d+(?:\.\d+)?)\s+to\s+(?P<places>\d+)\s+decimal",
    ]
    .map(|p| Regex::new(p).expect("a valid math pattern"))
});

const EXPRESSION: usize = 0;
const ARITHMETIC: usize = 1;
const PERCENT: usize = 2;
const ROUND: usize = 3;

/// Arithmetic, percentages, rounding and comparisons.
pub struct MathSkill;

#[async_trait]
impl Skill for MathSkill {
    fn name(&self) -> &'static str {
        "MathSkill"
    }

    fn key(&self) -> Option<SkillName> {
        Some(SkillName::Math)
    }

    fn gives_answers(&self) -> bool {
        true
    }

    fn find<'t>(&self, text: &'t str) -> Option<Found<'t>> {
        if text.chars().count() <= MAX_EXPRESSION_CHARS
            && let Some(found) = Found::first(&PATTERNS[..=EXPRESSION], text)
            && found.get("expr").is_some_and(is_expression)
        {
            return Some(found);
        }
        let mut found = Found::first(&PATTERNS[ARITHMETIC..], text)?;
        found.pattern += ARITHMETIC;
        Some(found)
    }

    fn intent(&self, _found: &Found<'_>) -> &'static str {
        "math"
    }

    async fn run(
        &self,
        _context: &SkillContext,
        text: &str,
        found: &Found<'_>,
    ) -> Result<String, SkillError> {
        Ok(answer(text, found))
    }
}

/// The answer to `text`, whose match is `found`.
pub fn answer(text: &str, found: &Found<'_>) -> String {
    let whole = match found.pattern {
        EXPRESSION => found.get("expr"),
        _ => text.get(request_span(text)),
    };
    if let Some(expr) = whole.filter(|e| is_expression(e)) {
        match evaluate(expr) {
            Ok(answer) => return answer,
            Err(MathError::DivideByZero) => return DIVIDE_BY_ZERO.to_owned(),
            Err(MathError::NotFinite) => {
                return "Math error: the result is not a finite number".to_owned();
            }
            Err(MathError::Parse) => {}
        }
    }
    let fallback = match found.pattern {
        ARITHMETIC => arithmetic(found),
        PERCENT => percent(found),
        ROUND => round(found),
        _ => None,
    };
    fallback.unwrap_or_else(|| HELP.to_owned())
}

/// Why an expression has no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MathError {
    Parse,
    DivideByZero,
    NotFinite,
}

/// One token of an expression.
#[derive(Debug, Clone, PartialEq)]
enum Token<'a> {
    Number(&'a str),
    Word(String),
    Op(&'a str),
}

/// The tokens of `expr`, or `None` when something in it is not math.
fn tokens(expr: &str) -> Option<Vec<Token<'_>>> {
    static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<word>sqrt|abs|floor|ceil|round|ln|log|sin|cos|tan|exp|min|max|pi)|(?P<op>\*\*|==|!=|<=|>=|[-+*/^×÷x%(),=<>]))",
        )
        .expect("a valid token pattern")
    });
    let mut out = Vec::new();
    let mut at = 0;
    for captures in TOKEN.captures_iter(expr) {
        let whole = captures.get(0)?;
        if whole.start() != at {
            return None;
        }
        at = whole.end();
        out.push(if let Some(n) = captures.name("num") {
            Token::Number(n.as_str())
        } else if let Some(w) = captures.name("word") {
            Token::Word(w.as_str().to_lowercase())
        } else {
            Token::Op(captures.name("op")?.as_str())
        });
    }
    (expr[at..].trim().is_empty() && !out.is_empty()).then_some(out)
}

/// Whether `expr` is math as a whole: only math tokens, a number, and a function or an
/// operator after an operand (a lone `-3` or `(4)` is a number, not a question).
fn is_expression(expr: &str) -> bool {
    let Some(tokens) = tokens(expr) else {
        return false;
    };
    let has_number = tokens.iter().any(|t| matches!(t, Token::Number(_)));
    let asks = tokens.iter().enumerate().any(|(i, t)| match t {
        Token::Word(w) => w != "pi",
        Token::Op(op) => {
            !matches!(*op, "(" | ")" | ",")
                && i > 0
                && matches!(
                    tokens[i - 1],
                    Token::Number(_) | Token::Op(")") | Token::Word(_)
                )
        }
        Token::Number(_) => false,
    });
    has_number && asks
}

/// Evaluates an expression, with at most one comparison; the answer in the seed's form
/// (`8 — 2^3`, `True — because 3*3 = 9`).
fn evaluate(expr: &str) -> Result<String, MathError> {
    let shown = expr.split_whitespace().collect::<Vec<_>>().join(" ");
    let tokens = tokens(expr).ok_or(MathError::Parse)?;
    let comparisons: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| matches!(t, Token::Op("=" | "==" | "!=" | "<" | "<=" | ">" | ">=")))
        .map(|(i, _)| i)
        .collect();
    match comparisons.as_slice() {
        [] => Ok(format!("{} — {shown}", format_number(value(&tokens)?))),
        // "2+2=" and "2+2 = ?" ask for the value.
        [i] if *i == tokens.len() - 1 => {
            let lhs = &tokens[..*i];
            Ok(format!(
                "{} — {}",
                format_number(value(lhs)?),
                shown_side(lhs)
            ))
        }
        [i] => {
            let (left, right) = (value(&tokens[..*i])?, value(&tokens[*i + 1..])?);
            let Token::Op(op) = tokens[*i] else {
                return Err(MathError::Parse);
            };
            let holds = compare(left, op, right);
            let lhs = shown_side(&tokens[..*i]);
            let truth = if holds { "True" } else { "False" };
            Ok(format!("{truth} — because {lhs} = {}", format_number(left)))
        }
        _ => Err(MathError::Parse),
    }
}

/// Whether `left op right` holds; equality within a relative 1e-9.
fn compare(left: f64, op: &str, right: f64) -> bool {
    let close = (left - right).abs() <= 1e-9 * left.abs().max(right.abs()).max(1.0);
    match op {
        "=" | "==" => close,
        "!=" => !close,
        "<" => left < right && !close,
        "<=" => left < right || close,
        ">" => left > right && !close,
        _ => left > right || close,
    }
}

/// The tokens as the answer shows them.
fn shown_side(tokens: &[Token<'_>]) -> String {
    tokens
        .iter()
        .map(|t| match t {
            Token::Number(n) | Token::Op(n) => (*n).to_owned(),
            Token::Word(w) => w.clone(),
        })
        .collect()
}

/// A math function of one number, and one that folds a list (`min`, `max`).
type Unary = fn(f64) -> f64;
type Fold = fn(f64, f64) -> f64;

const UNARY: [(&str, Unary); 11] = [
    ("sqrt", f64::sqrt),
    ("abs", f64::abs),
    ("floor", f64::floor),
    ("ceil", f64::ceil),
    ("round", f64::round),
    ("ln", f64::ln),
    ("log", f64::log10),
    ("sin", f64::sin),
    ("cos", f64::cos),
    ("tan", f64::tan),
    ("exp", f64::exp),
];
const FOLDS: [(&str, Fold); 2] = [("min", f64::min), ("max", f64::max)];

/// The context expressions run in: no built-in functions (string, regex, random, …),
/// only the math functions and `pi`.
static CONTEXT: LazyLock<HashMapContext<DefaultNumericTypes>> = LazyLock::new(|| {
    let mut context = HashMapContext::new();
    for (name, f) in UNARY {
        let function = Function::new(move |argument: &Value<DefaultNumericTypes>| {
            Ok(Value::Float(f(argument.as_number()?)))
        });
        context
            .set_function(name.to_owned(), function)
            .expect("a hash map context takes functions");
    }
    for (name, f) in FOLDS {
        context
            .set_function(name.to_owned(), Function::new(move |a| fold(a, f)))
            .expect("a hash map context takes functions");
    }
    context
        .set_value("pi".to_owned(), Value::Float(std::f64::consts::PI))
        .expect("a hash map context takes values");
    context
        .set_builtin_functions_disabled(true)
        .expect("a hash map context can disable built-ins");
    context
});

/// `f` over the numbers of a tuple argument (`min(3, 1, 2)`).
fn fold(
    argument: &Value<DefaultNumericTypes>,
    f: Fold,
) -> evalexpr::EvalexprResult<Value<DefaultNumericTypes>, DefaultNumericTypes> {
    let mut numbers = argument.as_tuple()?.into_iter();
    let first = numbers
        .next()
        .ok_or_else(|| evalexpr::EvalexprError::expected_tuple(argument.clone()))?
        .as_number()?;
    let folded = numbers.try_fold(first, |acc, n| n.as_number().map(|n| f(acc, n)))?;
    Ok(Value::Float(folded))
}

/// The value of one side of an expression.
fn value(tokens: &[Token<'_>]) -> Result<f64, MathError> {
    if tokens.is_empty() {
        return Err(MathError::Parse);
    }
    let mut source = String::new();
    let mut divides = false;
    for token in tokens {
        match token {
            Token::Number(n) if n.starts_with('.') => source.push_str(&format!("0{n}")),
            Token::Number(n) if n.contains('.') => source.push_str(n),
            Token::Number(n) => source.push_str(&format!("{n}.0")),
            Token::Word(w) => source.push_str(w),
            Token::Op(op) => {
                let op = match *op {
                    "x" | "X" | "×" => "*",
                    "÷" => "/",
                    "**" => "^",
                    other => other,
                };
                divides |= op == "/" || op == "%";
                source.push_str(op);
            }
        }
        source.push(' ');
    }
    let result = evalexpr::eval_with_context(&source, &*CONTEXT)
        .ok()
        .and_then(|v| v.as_number().ok())
        .ok_or(MathError::Parse)?;
    match (result.is_finite(), divides) {
        (true, _) => Ok(result),
        (false, true) => Err(MathError::DivideByZero),
        (false, false) => Err(MathError::NotFinite),
    }
}

/// A number as people write it: `4`, `3.5`, `0.3333333333`.
pub fn format_number(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 && x.abs() < 1e15 {
        let n = x.round() as i64;
        return n.to_string();
    }
    let fixed = format!("{x:.10}");
    fixed.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// The seed's fallback for `a op b`.
fn arithmetic(found: &Found<'_>) -> Option<String> {
    let a: f64 = found.get("a")?.parse().ok()?;
    let b: f64 = found.get("b")?.parse().ok()?;
    let result = match found.get("op")?.to_lowercase().as_str() {
        "x" | "×" | "*" => a * b,
        "/" if b == 0.0 => return Some(DIVIDE_BY_ZERO.to_owned()),
        "/" => a / b,
        "+" => a + b,
        _ => a - b,
    };
    Some(format_number(result))
}

/// The seed's fallback for `25% of 100`, to two decimals.
fn percent(found: &Found<'_>) -> Option<String> {
    let pct: f64 = found.get("pct")?.parse().ok()?;
    let of: f64 = found.get("of")?.parse().ok()?;
    Some(format_number((of * pct / 100.0 * 100.0).round() / 100.0))
}

/// `round 3.14159 to 2 decimal(s)`.
fn round(found: &Found<'_>) -> Option<String> {
    let value: f64 = found.get("val")?.parse().ok()?;
    let places: usize = found.get("places")?.parse().ok().filter(|p| *p <= 15)?;
    Some(format!("{value:.places$}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::conformance::{Harness, conformance_suite};

    /// The math skill; its answers need no database.
    struct Arithmetic;

    #[async_trait]
    impl Harness for Arithmetic {
        fn skill(&self) -> Box<dyn Skill> {
            Box::new(MathSkill)
        }

        fn claims(&self) -> Vec<(&'static str, &'static str)> {
            vec![
                ("what is 12 * 7", "math"),
                ("2^3", "math"),
                ("sqrt(16) + 1?", "math"),
                ("25% of 80", "math"),
                ("round 3.14159 to 2 decimal places", "math"),
            ]
        }

        fn near_misses(&self) -> Vec<&'static str> {
            vec![
                "3+4 abc",
                "The match ended 3-4 after extra time, what a game that was!",
                "Why is 0.1 + 0.2 not exactly 0.3 in floating point arithmetic?",
            ]
        }

        async fn context(&self) -> SkillContext {
            SkillContext {
                db: sea_orm::DatabaseConnection::default(),
                user_id: uuid::Uuid::now_v7(),
                session_id: uuid::Uuid::now_v7(),
            }
        }
    }

    conformance_suite!(Arithmetic);
}
