//! [`Segmented`]: a list that grows by segments and never moves what it
//! holds, for a run's record of its calls.
//!
//! A call-heavy run records millions of operations. A `Vec` grows by
//! doubling: each time, it copies everything into a block twice as large,
//! whose fresh pages the kernel first zeroes, so that growing to `n`
//! elements touches up to four times `n`'s memory and copies it once more.
//! On a virtual machine, where first touches of memory are slow, that was a
//! fifth of the scheduler's time on a ping-pong. Segment `k` of a
//! [`Segmented`] holds `BASE << k` elements and is never reallocated, so
//! pushing touches each element's memory once; indexing costs a shift and a
//! count of leading zeros.

use std::ops::{Index, IndexMut};

/// The first segment's size; segment `k` holds `BASE << k` elements.
const BASE: usize = 16;

/// A growable list indexed like a `Vec`, stored in segments of doubling
/// size (see the module's documentation).
#[derive(Clone)]
pub struct Segmented<T> {
    segs: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Segmented<T> {
    fn default() -> Self {
        Segmented {
            segs: Vec::new(),
            len: 0,
        }
    }
}

/// The segment and the position in it of element `i`.
fn locate(i: usize) -> (usize, usize) {
    let j = i / BASE + 1;
    let k = (usize::BITS - 1 - j.leading_zeros()) as usize;
    (k, i - BASE * ((1 << k) - 1))
}

impl<T> Segmented<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `x`; what the list holds stays where it is.
    pub fn push(&mut self, x: T) {
        let k = self.segs.len();
        if self.segs.last().is_none_or(|s| s.len() == BASE << (k - 1)) {
            self.segs.push(Vec::with_capacity(BASE << k));
        }
        self.segs.last_mut().expect("a segment with room").push(x);
        self.len += 1;
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        if i >= self.len {
            return None;
        }
        let (k, at) = locate(i);
        Some(&self.segs[k][at])
    }

    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.len {
            return None;
        }
        let (k, at) = locate(i);
        Some(&mut self.segs[k][at])
    }

    pub fn last(&self) -> Option<&T> {
        self.segs.last().and_then(|s| s.last())
    }

    pub fn contains(&self, x: &T) -> bool
    where
        T: PartialEq,
    {
        self.iter().any(|y| y == x)
    }

    /// The elements in order.
    pub fn iter(&self) -> Iter<'_, T> {
        self.range(0..self.len)
    }

    /// The elements from `start` on, in order: none when `start` is past
    /// the end, as `iter().skip(start)` would give.
    pub fn iter_from(&self, start: usize) -> Iter<'_, T> {
        self.range(start.min(self.len)..self.len)
    }

    /// The elements of `range`, in order, as `v[range].iter()` would give
    /// them for a `Vec` `v`.
    pub fn range(&self, range: std::ops::Range<usize>) -> Iter<'_, T> {
        let (a, b) = (range.start, range.end);
        assert!(
            a <= b && b <= self.len,
            "range {a}..{b} out of a list of {}",
            self.len
        );
        let empty = Iter {
            front: [].iter(),
            mid: &[],
            back: [].iter(),
            left: 0,
        };
        if a == b {
            return empty;
        }
        let ((ka, oa), (kb, ob)) = (locate(a), locate(b - 1));
        if ka == kb {
            return Iter {
                front: self.segs[ka][oa..=ob].iter(),
                left: b - a,
                ..empty
            };
        }
        Iter {
            front: self.segs[ka][oa..].iter(),
            mid: &self.segs[ka + 1..kb],
            back: self.segs[kb][..=ob].iter(),
            left: b - a,
        }
    }
}

impl<T> Index<usize> for Segmented<T> {
    type Output = T;

    fn index(&self, i: usize) -> &T {
        match self.get(i) {
            Some(x) => x,
            None => panic!("index {i} out of a list of {}", self.len),
        }
    }
}

impl<T> IndexMut<usize> for Segmented<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        let len = self.len;
        match self.get_mut(i) {
            Some(x) => x,
            None => panic!("index {i} out of a list of {len}"),
        }
    }
}

impl<T> FromIterator<T> for Segmented<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut s = Segmented::new();
        for x in iter {
            s.push(x);
        }
        s
    }
}

impl<T> From<Vec<T>> for Segmented<T> {
    fn from(v: Vec<T>) -> Self {
        v.into_iter().collect()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Segmented<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for Segmented<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<T: Eq> Eq for Segmented<T> {}

impl<T: PartialEq> PartialEq<[T]> for Segmented<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.len == other.len() && self.iter().eq(other.iter())
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for Segmented<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        *self == other[..]
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for Segmented<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        *self == other[..]
    }
}

impl<'a, T> IntoIterator for &'a Segmented<T> {
    type Item = &'a T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

/// An iterator over a [`Segmented`]'s elements.
pub struct Iter<'a, T> {
    /// What is left of the first segment it covers.
    front: std::slice::Iter<'a, T>,
    /// The segments in between, whole.
    mid: &'a [Vec<T>],
    /// What is left of the last segment it covers.
    back: std::slice::Iter<'a, T>,
    left: usize,
}

impl<'a, T> Iterator for Iter<'a, T> {
    type Item = &'a T;

    fn next(&mut self) -> Option<&'a T> {
        let x = loop {
            if let Some(x) = self.front.next() {
                break x;
            }
            match self.mid.split_first() {
                Some((seg, rest)) => {
                    self.front = seg.iter();
                    self.mid = rest;
                }
                None => break self.back.next()?,
            }
        };
        self.left -= 1;
        Some(x)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T> DoubleEndedIterator for Iter<'_, T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let x = loop {
            if let Some(x) = self.back.next_back() {
                break x;
            }
            match self.mid.split_last() {
                Some((seg, rest)) => {
                    self.back = seg.iter();
                    self.mid = rest;
                }
                None => break self.front.next_back()?,
            }
        };
        self.left -= 1;
        Some(x)
    }
}

impl<T> ExactSizeIterator for Iter<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_keep_their_index_and_address_as_the_list_grows() {
        let mut s = Segmented::new();
        s.push(0usize);
        let first: *const usize = &s[0];
        for i in 1..10_000 {
            s.push(i);
        }
        assert!(std::ptr::eq(first, &s[0]));
        assert_eq!(s.len(), 10_000);
        for i in 0..10_000 {
            assert_eq!(s[i], i);
        }
        assert_eq!(s.get(10_000), None);
        assert_eq!(s.last(), Some(&9_999));
        assert!(s.iter().copied().eq(0..10_000));
        assert!(s.iter().rev().copied().eq((0..10_000).rev()));
        assert_eq!(s.iter().len(), 10_000);
        assert!(s.iter_from(9_990).copied().eq(9_990..10_000));
        assert_eq!(s.iter_from(10_000).next(), None);
        assert_eq!(s.iter_from(10_001).len(), 0);
        assert_eq!(Segmented::<usize>::new().iter_from(1).next(), None);
        for (a, b) in [(0, 1), (15, 17), (40, 1000), (5, 5), (100, 10_000)] {
            assert!(s.range(a..b).copied().eq(a..b), "{a}..{b}");
            assert!(s.range(a..b).rev().copied().eq((a..b).rev()), "{a}..{b}");
            assert_eq!(s.range(a..b).len(), b - a);
        }
    }

    #[test]
    fn segments_double_from_the_first() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(BASE - 1), (0, BASE - 1));
        assert_eq!(locate(BASE), (1, 0));
        assert_eq!(locate(3 * BASE - 1), (1, 2 * BASE - 1));
        assert_eq!(locate(3 * BASE), (2, 0));
        let mut s = Segmented::new();
        for i in 0..(7 * BASE) {
            s.push(i);
        }
        assert_eq!(s.segs.len(), 3);
        assert!(s
            .segs
            .iter()
            .enumerate()
            .all(|(k, seg)| seg.len() == BASE << k));
        s[5 * BASE] = 0;
        assert_eq!(s[5 * BASE], 0);
    }
}
