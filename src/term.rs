//! The terminal a text renderer writes for: its width, its character set and colour.
//!
//! Width: `--wide` (no limit) > `COLUMNS` > the tty's width > 80 when not a terminal.
//! Character set: ASCII with `--ascii` or when the locale (LC_ALL, LC_CTYPE, LANG, first
//! one set wins) is not UTF-8. Tables shrink their columns to the width (comfy-table wraps
//! cells); tree lines longer than the width lose their tail to `…` (`...` in ASCII), and
//! prose (findings) wraps with a hanging indent. The full values are always in `--json`.

use comfy_table::{ContentArrangement, Table, presets};

/// The width used when stdout is not a terminal and `COLUMNS` is unset.
pub const PIPE_WIDTH: usize = 80;
/// Below this, no layout is readable; a smaller `COLUMNS` is raised to it.
pub const MIN_WIDTH: usize = 40;

/// Colour choice of `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Color {
    /// Colour on a terminal unless NO_COLOR is set (anstream's rules).
    #[default]
    Auto,
    Always,
    Never,
}

/// A table fitted to a terminal ([`Term::fitted_table`]): the columns kept, by their index in
/// the full header, and the note naming those left out.
pub struct FittedTable {
    pub table: Table,
    /// Indices into the full header of the columns shown, in order.
    pub keep: Vec<usize>,
    note: String,
}

impl FittedTable {
    /// The shown column that is column `header_index` of the full header, if it is shown.
    pub fn column_mut(&mut self, header_index: usize) -> Option<&mut comfy_table::Column> {
        let col = self.keep.iter().position(|&i| i == header_index)?;
        self.table.column_mut(col)
    }

    /// The table, then (on a line of its own) the note naming the columns left out; no
    /// newline at the end.
    pub fn render(&self) -> String {
        let note = self.note.trim_end();
        if note.is_empty() {
            self.table.to_string()
        } else {
            format!("{}\n{note}", self.table)
        }
    }
}

/// What the text renderers may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    /// Display columns per line; `None` means no limit (`--wide`).
    pub width: Option<usize>,
    /// Plain ASCII: no box-drawing characters.
    pub ascii: bool,
    pub color: Color,
}

impl Default for Term {
    fn default() -> Self {
        Term::WIDE
    }
}

impl Term {
    /// No width limit, UTF-8, colour by anstream's rules: the library's default.
    pub const WIDE: Term = Term {
        width: None,
        ascii: false,
        color: Color::Auto,
    };

    /// A fixed width, UTF-8.
    pub fn width(width: usize) -> Term {
        Term {
            width: Some(width),
            ..Term::WIDE
        }
    }

    /// The terminal of this process: reads `COLUMNS`, the locale and stdout's tty size.
    /// Box-drawing characters need a UTF-8 locale and a terminal on stdout (piped text goes
    /// to files, `grep` and byte-counting `awk`, so it is ASCII, as pstree does), unless
    /// `utf8` asks for them; `ascii` always wins.
    pub fn detect(wide: bool, ascii: bool, utf8: bool, color: Color) -> Term {
        let env = |k: &str| std::env::var(k).ok();
        let tty = tty_width();
        Term {
            width: width_from(wide, env("COLUMNS").as_deref(), tty),
            ascii: choose_ascii(
                ascii,
                utf8,
                locale_is_utf8(
                    env("LC_ALL").as_deref(),
                    env("LC_CTYPE").as_deref(),
                    env("LANG").as_deref(),
                ),
                std::io::IsTerminal::is_terminal(&std::io::stdout()),
            ),
            color,
        }
    }

    /// A table in this terminal's style, its columns shrunk to fit the width.
    pub fn table(&self) -> Table {
        let mut t = Table::new();
        t.load_style(if self.ascii {
            presets::ASCII_FULL_CONDENSED
        } else {
            presets::UTF8_FULL_CONDENSED
        });
        match self.width {
            Some(w) => {
                t.set_content_arrangement(ContentArrangement::Dynamic);
                t.set_width(w.min(u16::MAX as usize) as u16);
            }
            None => {
                t.set_content_arrangement(ContentArrangement::Disabled);
            }
        }
        t
    }

    /// The columns of a table to show, in order: all of them when their unwrapped width fits
    /// (or there is no limit), else fewer, dropping the columns of `drop_order` (indices,
    /// least wanted first) until it fits; the cells that remain wrap. The JSON has them all.
    fn keep_columns(
        &self,
        header: &[&str],
        rows: &[Vec<String>],
        drop_order: &[usize],
    ) -> Vec<usize> {
        let mut keep: Vec<usize> = (0..header.len()).collect();
        let Some(w) = self.width else {
            return keep;
        };
        let col_width = |i: usize| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .chain(std::iter::once(&header[i].to_string()))
                .map(|c| c.lines().map(visible_len).max().unwrap_or(0))
                .max()
                .unwrap_or(0)
        };
        // Borders: one before each column plus one, a space each side of every cell.
        let total = |keep: &[usize]| keep.iter().map(|&i| col_width(i) + 3).sum::<usize>() + 1;
        for &d in drop_order {
            if total(&keep) <= w {
                break;
            }
            keep.retain(|&i| i != d);
        }
        keep
    }

    /// A table of `rows` under `header` in this terminal's style and width, with the columns
    /// [`Term::keep_columns`] keeps for `drop_order`.
    pub fn fitted_table(
        &self,
        header: &[&str],
        rows: &[Vec<String>],
        drop_order: &[usize],
    ) -> FittedTable {
        let keep = self.keep_columns(header, rows, drop_order);
        let mut table = self.table();
        table.set_header(keep.iter().map(|&i| header[i]));
        for r in rows {
            table.add_row(
                keep.iter()
                    .map(|&i| crate::escape::terminal_plain(&r[i]).into_owned()),
            );
        }
        let note = self.left_out_note(header, &keep);
        FittedTable { table, keep, note }
    }

    /// A note naming the columns [`Term::keep_columns`] left out, or nothing.
    fn left_out_note(&self, header: &[&str], keep: &[usize]) -> String {
        let gone: Vec<&str> = (0..header.len())
            .filter(|i| !keep.contains(i))
            .map(|i| header[i])
            .collect();
        if gone.is_empty() {
            return String::new();
        }
        self.wrap(&format!(
            "(not shown at this width: {}; --wide or --json shows them)\n",
            gone.join(", ")
        ))
    }

    /// Tree or picture text: ASCII when asked, each line cut to the width with an ellipsis.
    pub fn fit(&self, text: &str) -> String {
        self.per_line(text, |line, out| match self.width {
            // Most lines fit: copied as they are, no string made per line.
            Some(w) if visible_len(line) > w => out.push_str(&self.cut(line)),
            _ => out.push_str(line),
        })
    }

    /// Prose: ASCII when asked, long lines wrapped at spaces with a hanging indent.
    pub fn wrap(&self, text: &str) -> String {
        self.wrap_in(text, false)
    }

    fn wrap_in(&self, text: &str, painted: bool) -> String {
        self.per_line_in(text, painted, |line, out| {
            let w = match self.width {
                Some(w) if visible_len(line) > w => w,
                _ => {
                    out.push_str(line);
                    return;
                }
            };
            let indent: String = line.chars().take_while(|c| *c == ' ').collect();
            let hang = format!("{indent}  ");
            if hang.chars().count() + 10 > w {
                out.push_str(&self.cut(line));
                return;
            }
            let mut cur = String::new();
            let mut first = true;
            for word in line[indent.len()..].split(' ') {
                let lead = if first { &indent } else { &hang };
                let cur_len = visible_len(&cur);
                let word_len = visible_len(word);
                if cur.is_empty() {
                    cur = format!("{lead}{word}");
                } else if cur_len + 1 + word_len <= w {
                    cur.push(' ');
                    cur.push_str(word);
                } else {
                    out.push_str(&self.cut(&cur));
                    out.push('\n');
                    first = false;
                    cur = format!("{hang}{word}");
                }
            }
            out.push_str(&self.cut(&cur));
        })
    }

    /// [`wrap`](Self::wrap) for text that paints its own colour (the bay picture, whose
    /// names are escaped where it draws them): its SGR sequences are kept.
    pub fn wrap_painted(&self, text: &str) -> String {
        self.wrap_in(text, true)
    }

    fn per_line(&self, text: &str, f: impl FnMut(&str, &mut String)) -> String {
        self.per_line_in(text, false, f)
    }

    fn per_line_in(
        &self,
        text: &str,
        painted: bool,
        mut f: impl FnMut(&str, &mut String),
    ) -> String {
        // Control characters in names never reach the terminal raw; SGR colour only in text
        // that paints its own (`wrap_painted`).
        let text = if painted {
            crate::escape::terminal_text(text)
        } else {
            crate::escape::terminal_plain(text)
        };
        let text = if self.ascii {
            to_ascii(&text)
        } else {
            text.into_owned()
        };
        let mut out = String::with_capacity(text.len());
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            f(line, &mut out);
        }
        out
    }

    /// One line cut to the width, its tail replaced by `…` (`...` in ASCII).
    fn cut(&self, line: &str) -> String {
        let Some(w) = self.width else {
            return line.to_string();
        };
        if visible_len(line) <= w {
            return line.to_string();
        }
        let tail = if self.ascii { "..." } else { "…" };
        let keep = w.saturating_sub(tail.chars().count());
        let mut s = String::new();
        let (mut n, mut esc, mut coloured) = (0, false, false);
        for c in line.chars() {
            if esc || c == '\x1b' {
                // ANSI escapes take no columns: keep them, count nothing.
                esc = !(esc && c.is_ascii_alphabetic());
                coloured = true;
                s.push(c);
                continue;
            }
            if n == keep {
                break;
            }
            s.push(c);
            n += 1;
        }
        if coloured {
            s.push_str("\x1b[0m");
        }
        s.push_str(tail);
        s
    }
}

/// Display columns of a line: its characters, less ANSI escape sequences.
pub fn visible_len(line: &str) -> usize {
    let (mut n, mut esc) = (0, false);
    for c in line.chars() {
        if esc {
            esc = !c.is_ascii_alphabetic();
        } else if c == '\x1b' {
            esc = true;
        } else {
            n += 1;
        }
    }
    n
}

/// `--wide` > `COLUMNS` > the tty's width > [`PIPE_WIDTH`].
pub fn width_from(wide: bool, columns: Option<&str>, tty: Option<usize>) -> Option<usize> {
    if wide {
        return None;
    }
    let cols = columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c > 0);
    Some(cols.or(tty).unwrap_or(PIPE_WIDTH).max(MIN_WIDTH))
}

/// Whether text is plain ASCII: asked for (`--ascii`), else unless asked for box drawing
/// (`--utf8`), whenever the locale is not UTF-8 or stdout is no terminal.
pub fn choose_ascii(ascii: bool, utf8: bool, locale_utf8: bool, tty: bool) -> bool {
    let boxes = utf8 || (locale_utf8 && tty);
    ascii || !boxes
}

/// Whether the locale's character set is UTF-8: the first of LC_ALL, LC_CTYPE, LANG that
/// is set and not empty decides; none set means the "C" locale, which is ASCII.
pub fn locale_is_utf8(lc_all: Option<&str>, lc_ctype: Option<&str>, lang: Option<&str>) -> bool {
    let Some(l) = [lc_all, lc_ctype, lang]
        .into_iter()
        .flatten()
        .find(|v| !v.is_empty())
    else {
        return false;
    };
    let l = l.to_ascii_lowercase();
    l.contains("utf-8") || l.contains("utf8")
}

/// The width of stdout's terminal, if stdout is one.
pub fn tty_width() -> Option<usize> {
    // SAFETY: TIOCGWINSZ writes one winsize into the struct we own; a failing call (not a
    // tty) leaves it zeroed and returns -1.
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_col > 0).then_some(ws.ws_col as usize)
}

/// The box-drawing and typographic characters the renderers use, in ASCII.
pub fn to_ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '─' | '═' | '┄' | '┈' => out.push('-'),
            '│' | '┆' | '┊' | '║' => out.push('|'),
            '├' | '┤' | '┬' | '┴' | '┼' | '╪' | '╞' | '╡' | '┌' | '┐' | '┘' | '╭' | '╮' | '╯'
            | '╰' => out.push('+'),
            '└' => out.push('`'),
            '→' => out.push_str("->"),
            '←' => out.push_str("<-"),
            '—' | '–' => out.push('-'),
            '…' => out.push_str("..."),
            '×' => out.push('x'),
            '≤' => out.push_str("<="),
            '≥' => out.push_str(">="),
            '°' => out.push_str("deg"),
            'µ' | 'μ' => out.push('u'),
            c if c.is_ascii() => out.push(c),
            _ => out.push('?'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_drawing_only_on_a_utf8_terminal_or_when_asked() {
        // (ascii, utf8, locale UTF-8, tty) -> plain ASCII?
        assert!(!choose_ascii(false, false, true, true));
        assert!(choose_ascii(false, false, true, false));
        assert!(choose_ascii(false, false, false, true));
        assert!(!choose_ascii(false, true, true, false));
        assert!(!choose_ascii(false, true, false, false));
        assert!(choose_ascii(true, false, true, true));
    }

    #[test]
    fn width_precedence() {
        assert_eq!(width_from(true, Some("80"), Some(200)), None);
        assert_eq!(width_from(false, Some("100"), Some(200)), Some(100));
        assert_eq!(width_from(false, None, Some(132)), Some(132));
        assert_eq!(width_from(false, None, None), Some(80));
        assert_eq!(width_from(false, Some("junk"), None), Some(80));
        assert_eq!(width_from(false, Some("10"), None), Some(MIN_WIDTH));
    }

    #[test]
    fn escapes_take_no_columns() {
        assert_eq!(visible_len("\x1b[1;31mabc\x1b[0m"), 3);
        let t = Term::width(5);
        // Painted text (the bay picture) keeps its colour, which takes no columns.
        assert_eq!(t.wrap_painted("\x1b[31mabcdefgh"), "\x1b[31mabcd\x1b[0m…");
        assert_eq!(t.wrap_painted("\x1b[31mabc\x1b[0m"), "\x1b[31mabc\x1b[0m");
        // Elsewhere an SGR sequence can only come from a name: shown, never kept.
        assert_eq!(Term::WIDE.fit("\x1b[31mab"), "\\u{1b}[31mab");
        assert_eq!(Term::WIDE.wrap("a\x1b[0m b"), "a\\u{1b}[0m b");
    }

    #[test]
    fn locale() {
        assert!(locale_is_utf8(None, None, Some("en_US.UTF-8")));
        assert!(locale_is_utf8(None, None, Some("C.utf8")));
        assert!(!locale_is_utf8(Some("C"), None, Some("en_US.UTF-8")));
        assert!(!locale_is_utf8(None, Some("POSIX"), None));
        assert!(!locale_is_utf8(None, None, None));
        assert!(locale_is_utf8(Some(""), None, Some("de_DE.utf8")));
    }

    #[test]
    fn cut_and_wrap() {
        let t = Term::width(10);
        assert_eq!(t.fit("├─ abcdefghijk\nok"), "├─ abcdef…\nok");
        let a = Term { ascii: true, ..t };
        assert_eq!(a.fit("├─ abcdefghijk"), "+- abcd...");
        let t = Term::width(40);
        let w = t.wrap("error: one two three four five six seven eight nine ten eleven");
        assert_eq!(
            w,
            "error: one two three four five six seven\n  eight nine ten eleven"
        );
    }
}
