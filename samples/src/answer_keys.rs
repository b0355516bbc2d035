//! The answer keys of the Chinese finance questions whose ground truth is a category. The
//! generator labels its tasks with them; the checks (`tests/it/finance_checks.rs`) apply them to
//! values they recompute from the written database with their own SQL.

/// The three-year trend label of two consecutive changes `d1`, `d2` (percentage points for a
/// ratio, percent otherwise): both above +1 rising, both below −1 falling, both within ±1 flat,
/// anything else fluctuating.
pub fn trend_label(d1: f64, d2: f64) -> &'static str {
    if d1 > 1.0 && d2 > 1.0 {
        "持续上升"
    } else if d1 < -1.0 && d2 < -1.0 {
        "持续下降"
    } else if d1.abs() <= 1.0 && d2.abs() <= 1.0 {
        "基本不变"
    } else {
        "波动较大"
    }
}

/// The option letter of a revenue growth `g` (percent) among A ≤ −5 < B < 2 ≤ C < 8 ≤ D.
pub fn growth_option(g: f64) -> &'static str {
    if g <= -5.0 {
        "A"
    } else if g < 2.0 {
        "B"
    } else if g < 8.0 {
        "C"
    } else {
        "D"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_fall_where_the_question_text_puts_them() {
        assert_eq!(trend_label(1.5, 3.0), "持续上升");
        assert_eq!(trend_label(-1.5, -3.0), "持续下降");
        assert_eq!(trend_label(1.0, -1.0), "基本不变");
        assert_eq!(trend_label(1.01, 1.0), "波动较大");
        assert_eq!(trend_label(2.0, -2.0), "波动较大");
        let letters: Vec<&str> = [-5.0, -4.99, 1.99, 2.0, 7.99, 8.0].into_iter().map(growth_option).collect();
        assert_eq!(letters, ["A", "B", "B", "C", "C", "D"]);
    }
}
