//! Numbers written in decimal straight into a `String`, without `fmt`'s
//! machinery: the human output writes a line and column for every finding,
//! and `fix --diff` two ranges for every hunk header (27k headers on the 10k
//! bench tree).

/// Append `n` in decimal, as `{}` writes it.
pub fn push_decimal(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_fmt_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u32::MAX as usize, usize::MAX] {
            let mut s = String::from("x");
            push_decimal(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }
}
