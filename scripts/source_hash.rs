//! The normalisation of a kernel `.rs` file before it is hashed into the PTX's source hash, as
//! `scripts/source_hash.py` does it: comments removed (line, block and doc comments, block
//! comments nested) outside string and char literals, every run of whitespace outside literals
//! made one space, the ends trimmed. Used by build.rs and tests/source_hash.rs (by `#[path]`),
//! so it needs nothing but `std`.

/// Rust's `Pattern_White_Space`.
fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
    )
}

fn is_ident(c: char) -> bool {
    c == '_' || c.is_ascii_alphanumeric()
}

/// Index just past the literal opened by the `quote` at `i` (backslash escapes).
fn quoted_end(s: &[char], i: usize, quote: char) -> usize {
    let mut j = i + 1;
    while j < s.len() && s[j] != quote {
        j += if s[j] == '\\' { 2 } else { 1 };
    }
    (j + 1).min(s.len())
}

fn starts_with(s: &[char], i: usize, pat: &str) -> bool {
    pat.chars().enumerate().all(|(k, p)| s.get(i + k) == Some(&p))
}

/// `src` without comments, whitespace runs outside literals as one space, trimmed.
pub fn strip(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let n = s.len();
    let mut out = String::with_capacity(src.len());
    // Whitespace or a comment seen since the last token character.
    let mut space = false;
    fn emit(out: &mut String, text: &[char], space: &mut bool) {
        if *space && !out.is_empty() {
            out.push(' ');
        }
        *space = false;
        out.extend(text);
    }
    let mut i = 0;
    while i < n {
        let c = s[i];
        if is_space(c) {
            space = true;
            i += 1;
        } else if starts_with(&s, i, "//") {
            while i < n && s[i] != '\n' {
                i += 1;
            }
            space = true;
        } else if starts_with(&s, i, "/*") {
            let mut depth = 1;
            i += 2;
            while i < n && depth > 0 {
                if starts_with(&s, i, "/*") {
                    depth += 1;
                    i += 2;
                } else if starts_with(&s, i, "*/") {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            space = true;
        } else if c == '"' {
            let j = quoted_end(&s, i, '"');
            emit(&mut out, &s[i..j], &mut space);
            i = j;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime / label ('a, 'static).
            let j = if s.get(i + 1) == Some(&'\\') {
                quoted_end(&s, i, '\'')
            } else if s.get(i + 2) == Some(&'\'') {
                i + 3
            } else {
                i + 1
            };
            emit(&mut out, &s[i..j], &mut space);
            i = j;
        } else if is_ident(c) {
            let mut j = i;
            while j < n && is_ident(s[j]) {
                j += 1;
            }
            let word: String = s[i..j].iter().collect();
            let next = s.get(j).copied();
            if matches!(word.as_str(), "r" | "br" | "cr") && matches!(next, Some('#' | '"')) {
                let mut k = j;
                while k < n && s[k] == '#' {
                    k += 1;
                }
                if k < n && s[k] == '"' {
                    let close: String = core::iter::once('"').chain(core::iter::repeat_n('#', k - j)).collect();
                    j = (k + 1..n).find(|&e| starts_with(&s, e, &close)).map_or(n, |e| e + close.chars().count());
                }
            } else if matches!(word.as_str(), "b" | "c") && next == Some('"') {
                j = quoted_end(&s, j, '"');
            } else if word == "b" && next == Some('\'') {
                j = quoted_end(&s, j, '\'');
            }
            emit(&mut out, &s[i..j], &mut space);
            i = j;
        } else {
            emit(&mut out, &s[i..i + 1], &mut space);
            i += 1;
        }
    }
    out
}
