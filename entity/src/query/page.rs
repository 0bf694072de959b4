//! Keyset pagination: a page is "the next `limit` rows after this key", so pages never
//! overlap or skip rows that existed when the first page was read, however deep.

/// How many rows a page may hold, and where it starts.
#[derive(Debug, Clone)]
pub struct PageRequest<C> {
    pub limit: u64,
    pub after: Option<C>,
}

/// One page of rows, with the key to continue after the last one (None: no more rows).
#[derive(Debug, Clone)]
pub struct Page<T, C> {
    pub items: Vec<T>,
    pub next: Option<C>,
}

impl<T, C> Page<T, C> {
    /// Builds a page from `limit + 1` fetched rows: the extra row only says "there is more".
    pub fn from_overfetch(mut rows: Vec<T>, limit: u64, key: impl Fn(&T) -> C) -> Self {
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next = if more { rows.last().map(key) } else { None };
        Self { items: rows, next }
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U, C> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next: self.next,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overfetch_sets_next_only_when_more_rows_exist() {
        let page = Page::from_overfetch(vec![1, 2, 3], 2, |n| *n);
        assert_eq!(page.items, vec![1, 2]);
        assert_eq!(page.next, Some(2));
        let last = Page::from_overfetch(vec![1, 2], 2, |n| *n);
        assert_eq!(last.items, vec![1, 2]);
        assert_eq!(last.next, None);
    }
}
