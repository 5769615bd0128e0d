//! Multi-column layouts: `-C` (down columns), `-x` (across), and `-m`
//! (comma-separated, wrapped), with GNU's column fitting and tab padding.

/// GNU's narrowest column (a one-char name plus two spaces).
const MIN_COLUMN_WIDTH: usize = 3;

/// Column widths for the widest layout that fits in `line` columns
/// (0 = unlimited). `by_columns` fills down columns (`-C`), else across.
pub fn fit(widths: &[usize], line: usize, by_columns: bool) -> Vec<usize> {
    let n = widths.len();
    if n == 0 {
        return vec![0];
    }
    let line = if line == 0 { usize::MAX } else { line };
    // GNU rounds up: the last column needs no gap, so a line that is not a
    // multiple of the narrowest column still holds one more (`-w4`: two
    // one-character names, `a  b`).
    let max_idx = line.div_ceil(MIN_COLUMN_WIDTH).max(1);
    let max_cols = max_idx.min(n);
    // The widths of every candidate layout (c columns at offset c(c-1)/2),
    // in one allocation made up front as GNU's init_column_info does: an
    // absurd COLUMNS with a huge directory then fails at once with "memory
    // exhausted", instead of growing one small allocation at a time until
    // the machine runs out of memory.
    let cells = max_cols.checked_mul(max_cols + 1).map(|x| x / 2);
    let Some(cells) = cells.filter(|&c| c <= isize::MAX as usize / std::mem::size_of::<usize>())
    else {
        libcw::mem::oom_exit()
    };
    let mut cols: Vec<usize> = vec![MIN_COLUMN_WIDTH; cells];
    let base = |i: usize| i * (i + 1) / 2;
    let mut total: Vec<usize> = (1..=max_cols).map(|c| c * MIN_COLUMN_WIDTH).collect();
    let mut valid: Vec<bool> = vec![true; max_cols];
    for (k, &w) in widths.iter().enumerate() {
        for i in 0..max_cols {
            if !valid[i] {
                continue;
            }
            let ncols = i + 1;
            let idx = if by_columns {
                let rows = n.div_ceil(ncols);
                k / rows
            } else {
                k % ncols
            };
            let real = w + if idx == i { 0 } else { 2 };
            let cell = &mut cols[base(i) + idx];
            if *cell < real {
                total[i] += real - *cell;
                *cell = real;
                valid[i] = total[i] < line;
            }
        }
    }
    let mut best = 1;
    for c in (1..=max_cols).rev() {
        if valid[c - 1] {
            best = c;
            break;
        }
    }
    cols[base(best - 1)..base(best - 1) + best].to_vec()
}

/// Pads from column `from` to `to` with tabs (every `tabsize`) and spaces.
pub fn indent(out: &mut Vec<u8>, mut from: usize, to: usize, tabsize: usize) {
    while from < to {
        if tabsize != 0 && to / tabsize > (from + 1) / tabsize {
            out.push(b'\t');
            from += tabsize - from % tabsize;
        } else {
            out.push(b' ');
            from += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_like_gnu() {
        // Six 1-wide names in 10 columns: four columns fit (the last one
        // needs no gap), which down two rows fills only three, as in GNU.
        let w = fit(&[1; 6], 10, true);
        assert_eq!(w, vec![3, 3, 3, 3]);
        assert_eq!(6usize.div_ceil(w.len()), 2);
        // Everything on one line when unlimited.
        assert_eq!(fit(&[5, 5], 0, true), vec![7, 5]);
        // `ls -w4 -x a b`: two columns, the last one's gap not counted.
        assert_eq!(fit(&[1, 1], 4, false), vec![3, 3]);
        assert_eq!(fit(&[1, 1], 2, false), vec![3]);
        let mut v = Vec::new();
        indent(&mut v, 3, 17, 8);
        assert_eq!(v, b"\t\t ");
    }
}
