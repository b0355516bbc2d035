//! Cues of the query and the instruction: option lists, direction words (lowest, growth), and
//! whether a number or a yes/no is asked for — generic vocabulary, not task wording.

use std::collections::BTreeSet;

use crate::method::offline::re;

/// Option letters and their texts: "A. 联创软件（002483） | B. …" or "A. above 10% B. …".
pub(super) fn options(query: &str) -> Vec<(String, String)> {
    let marks: Vec<(usize, usize, String)> = re(r"(?:^|[\s|：:？?])([A-H])[.．、]\s*")
        .captures_iter(query)
        .filter_map(|c| {
            let m = c.get(1)?;
            let whole = c.get(0)?;
            Some((m.start(), whole.end(), m.as_str().to_string()))
        })
        .collect();
    let mut out = Vec::new();
    for (i, (_, body_start, letter)) in marks.iter().enumerate() {
        let end = marks.get(i + 1).map_or(query.len(), |n| n.0);
        let body = query[*body_start..end].trim().trim_end_matches(['|', ' ']).trim().to_string();
        out.push((letter.clone(), body));
    }
    // Letters must run A, B, C… from the first one.
    let ok = out.iter().enumerate().all(|(i, (l, _))| l.as_bytes()[0] == b'A' + i as u8);
    if ok && out.len() >= 2 { out } else { Vec::new() }
}

/// Direction words.
pub(super) fn wants_lowest(s: &str) -> bool {
    ["最低", "最少", "最小", "lowest", "smallest", "bottom"].iter().any(|w| s.contains(w))
}

pub(super) fn wants_growth(s: &str) -> bool {
    ["同比增速", "同比增长", "增速", "增长率", "growth", "change"].iter().any(|w| s.contains(w))
}

/// Whether the instruction asks for a bare number (数值, numeric, number, a percentage).
pub(super) fn wants_number(instruction: &str) -> bool {
    let l = instruction.to_lowercase();
    ["数值", "数字", "numeric", "number", "in %", "percent", "decimal", "保留两位小数"].iter().any(|w| l.contains(w))
}

/// Whether the instruction asks for yes or no.
pub(super) fn wants_yes_no(instruction: &str) -> bool {
    let l = instruction.to_lowercase();
    (instruction.contains('是') && instruction.contains('否') && instruction.contains('或'))
        || (l.contains("yes") && l.contains(" no"))
}

pub(super) fn char_bigrams(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    if chars.iter().all(char::is_ascii) {
        // English: words of four letters or more.
        return s
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 4)
            .map(str::to_lowercase)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
    }
    chars.windows(2).map(|w| w.iter().collect()).collect::<BTreeSet<String>>().into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_letters_in_order() {
        let o = options("哪一家？ A. 联创软件（002483） | B. 嘉禾软件（601171） | C. 鼎盛 | D. 安澜");
        assert_eq!(o.len(), 4);
        assert_eq!(o[1], ("B".to_string(), "嘉禾软件（601171）".to_string()));
        let o = options("fall in? A. above 10% B. 0% to 10% C. -10% to below 0% D. below -10%");
        assert_eq!(o.iter().map(|x| x.0.as_str()).collect::<String>(), "ABCD");
        assert!(options("no options here").is_empty());
    }
}
