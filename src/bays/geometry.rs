//! Chassis geometry as data: where each bay sits on the front or rear panel.
//!
//! Derived from the bays themselves (size, count, location): 2.5" bays stand side by side in
//! one row (24 in a 2U, 10 or 8 in a 1U); 3.5" bays lie in rows of four (12 in three rows, 4
//! in one row, 2 rear bays in one row). A platform file can say otherwise on any bay group of
//! the panel with `rows = N` and `order = "column-major"`.

use super::BayLocation;
use crate::platform::schema::BayOrder;
use serde::Serialize;

/// One panel of bays: rows top to bottom, each row left to right, as bay numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Panel {
    pub location: BayLocation,
    /// `2.5` or `3.5` (the most common size on the panel).
    pub size: String,
    pub rows: Vec<Vec<u32>>,
}

impl Panel {
    pub fn columns(&self) -> usize {
        self.rows.iter().map(Vec::len).max().unwrap_or(0)
    }

    pub fn count(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }

    /// (row, column) of a bay.
    pub fn position(&self, bay: u32) -> Option<(usize, usize)> {
        self.rows
            .iter()
            .enumerate()
            .find_map(|(r, row)| row.iter().position(|&b| b == bay).map(|c| (r, c)))
    }
}

/// 3.5" bays per row when nothing says otherwise.
pub const LFF_PER_ROW: usize = 4;

/// Panels from `(bay, location, size, rows hint, order hint)`: front first, then rear.
pub fn panels<'a>(
    bays: impl IntoIterator<Item = (u32, BayLocation, &'a str, Option<u8>, Option<BayOrder>)>,
) -> Vec<Panel> {
    let mut out = Vec::new();
    let all: Vec<_> = bays.into_iter().collect();
    for loc in [BayLocation::Front, BayLocation::Rear] {
        let mine: Vec<_> = all.iter().filter(|b| b.1 == loc).collect();
        if mine.is_empty() {
            continue;
        }
        let mut numbers: Vec<u32> = mine.iter().map(|b| b.0).collect();
        numbers.sort_unstable();
        numbers.dedup();
        let size = most_common(mine.iter().map(|b| b.2));
        let rows_hint = mine.iter().find_map(|b| b.3).map(usize::from);
        let order = mine.iter().find_map(|b| b.4).unwrap_or_default();
        out.push(Panel {
            location: loc,
            rows: arrange(&numbers, &size, rows_hint, order),
            size,
        });
    }
    out
}

fn most_common<'a>(sizes: impl Iterator<Item = &'a str>) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for s in sizes {
        match counts.iter_mut().find(|(k, _)| *k == s) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .map(|(s, _)| s.to_string())
        .unwrap_or_else(|| "2.5".into())
}

/// Lays sorted bay numbers out in rows.
pub fn arrange(numbers: &[u32], size: &str, rows: Option<usize>, order: BayOrder) -> Vec<Vec<u32>> {
    let n = numbers.len();
    if n == 0 {
        return Vec::new();
    }
    let rows = rows
        .filter(|&r| r > 0)
        .unwrap_or(if size == "3.5" && n > LFF_PER_ROW {
            n.div_ceil(LFF_PER_ROW)
        } else {
            1
        })
        .min(n);
    let cols = n.div_ceil(rows);
    let mut out = vec![Vec::new(); rows];
    match order {
        BayOrder::RowMajor => {
            for (i, &b) in numbers.iter().enumerate() {
                out[i / cols].push(b);
            }
        }
        BayOrder::ColumnMajor => {
            for (i, &b) in numbers.iter().enumerate() {
                out[i % rows].push(b);
            }
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(a: u32, b: u32) -> Vec<u32> {
        (a..=b).collect()
    }

    #[test]
    fn small_form_factor_bays_stand_in_one_row() {
        let r = arrange(&range(0, 23), "2.5", None, BayOrder::RowMajor);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0], range(0, 23));
        assert_eq!(
            arrange(&range(0, 9), "2.5", None, BayOrder::RowMajor).len(),
            1
        );
    }

    #[test]
    fn large_form_factor_bays_lie_in_rows_of_four() {
        let r = arrange(&range(0, 11), "3.5", None, BayOrder::RowMajor);
        assert_eq!(r, vec![range(0, 3), range(4, 7), range(8, 11)]);
        assert_eq!(
            arrange(&range(0, 3), "3.5", None, BayOrder::RowMajor),
            vec![range(0, 3)]
        );
        assert_eq!(
            arrange(&[24, 25], "3.5", None, BayOrder::RowMajor),
            vec![vec![24, 25]]
        );
    }

    #[test]
    fn hints_override_the_derivation() {
        let r = arrange(&range(0, 11), "3.5", Some(4), BayOrder::ColumnMajor);
        assert_eq!(
            r,
            vec![vec![0, 4, 8], vec![1, 5, 9], vec![2, 6, 10], vec![3, 7, 11]]
        );
        let r = arrange(&range(0, 23), "2.5", Some(2), BayOrder::RowMajor);
        assert_eq!(r, vec![range(0, 11), range(12, 23)]);
    }

    #[test]
    fn panels_split_front_and_rear() {
        let bays = [
            (0, BayLocation::Front, "3.5", None, None),
            (1, BayLocation::Front, "3.5", None, None),
            (24, BayLocation::Rear, "3.5", None, None),
        ];
        let p = panels(bays);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].location, BayLocation::Front);
        assert_eq!(p[1].rows, vec![vec![24]]);
        assert_eq!(p[0].position(1), Some((0, 1)));
    }
}
