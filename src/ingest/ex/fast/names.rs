//! Scanning symbolic lines: function names read, cached and given
//! chunk-local ids, and runs of lines predicted from the last line's shape.

use super::super::super::funcs::MAX_NAME;
use super::shape::*;
use super::*;

impl Parser {
    /// The chunk-local id of the function name that starts at `j` (and
    /// ends before a space or the line end at `end`), and where it ends.
    /// Names that the line parser would read otherwise (`0x...` tokens,
    /// control bytes) or refuse (over [`MAX_NAME`]) are left to it.
    pub(super) fn name(
        &mut self,
        b: &[u8],
        j: usize,
        end: usize,
        names: &mut Vec<String>,
    ) -> Option<(u32, usize)> {
        let line = b.get(j..end)?;
        // (a name past the bound is not read to its end)
        let head = &line[..line.len().min(MAX_NAME + 1)];
        let len = head.iter().position(|&c| c <= b' ').unwrap_or(head.len());
        let name = &line[..len];
        if name.is_empty()
            || name.len() > MAX_NAME
            || name.starts_with(b"0x")
            || name.starts_with(b"0X")
            || !matches!(line.get(len), None | Some(b' ' | b'\r'))
        {
            return None;
        }
        Some((self.name_id(name, names), j + len))
    }

    /// The chunk-local id of function name `name`.
    pub(super) fn name_id(&mut self, name: &[u8], names: &mut Vec<String>) -> u32 {
        // Names are kept as text (invalid UTF-8 replaced), and found by it.
        let text = String::from_utf8_lossy(name);
        if let Some(id) = self.name_index.find(name, |id| names[id as usize] == *text) {
            return id;
        }
        let id = names.len() as u32;
        names.push(text.into_owned());
        self.name_index.insert(NameIndex::hash(name), id);
        id
    }

    /// Reads the run of symbolic event lines with `COLS` columns that
    /// starts at `i`, as [`Parser::run`] does for address lines.
    #[inline(always)]
    pub(super) fn run_names<const COLS: u8, C: EventConsumer>(
        &mut self,
        b: &[u8],
        i: usize,
        local: &mut LocalEvents,
        consumer: &mut C,
    ) -> Result<(usize, u64), Stop> {
        let thread0 = if COLS < 2 {
            self.thread(0, &mut local.tids)
        } else {
            0
        };
        // The predicted columns after the name, and the whole line's shape
        // for each name length (a `Shape` is about a hundred bytes): kept
        // across runs, worked out again when a line gives new columns.
        let mut shapes = self.name_shapes.take().unwrap_or_default();
        if shapes.cols != Some(COLS) {
            *shapes = NameShapes::new::<COLS>(self.tail_shape.as_ref());
        }
        let run = self.run_shaped::<COLS, C>(&mut shapes, b, i, thread0, local, consumer);
        self.name_shapes = Some(shapes);
        run
    }

    /// [`Parser::run_names`] with the shapes of its lines.
    #[inline(always)]
    pub(super) fn run_shaped<const COLS: u8, C: EventConsumer>(
        &mut self,
        shapes: &mut NameShapes,
        b: &[u8],
        mut i: usize,
        thread0: u32,
        local: &mut LocalEvents,
        consumer: &mut C,
    ) -> Result<(usize, u64), Stop> {
        let mut lines = 0;
        let mut tail = self.tail_shape;
        // The last line's name length, text and id: the next line most
        // often has a name of the same length (the same name, for a leaf's
        // exit), and is tried at that shape first, so that where it ends
        // is known before it is read, as for address lines.
        let mut last: Option<(usize, (u64, u64), u32)> = None;
        // Where the last line's name starts, its length and id, when it
        // was a long one: a leaf's exit repeats it.
        let mut last_long: Option<(usize, usize, u32)> = None;
        loop {
            let (e, next) = if let Some((len, key, id)) = &mut last
                && let Some(line) =
                    self.same_length::<COLS>(&shapes.by_len[*len], key, id, b, i, thread0, local)
            {
                line
            } else if let Some((e, next, len, key)) =
                self.any_name::<COLS>(shapes, b, i, thread0, local)
            {
                last = Some((len, key, e.func));
                last_long = None;
                (e, next)
            } else {
                last = None;
                let Some((e, next, new_shape, long)) =
                    self.named::<COLS>(b, i, thread0, &tail, local)
                else {
                    break;
                };
                if new_shape {
                    tail = self.tail_shape;
                    *shapes = NameShapes::new::<COLS>(tail.as_ref());
                }
                last_long = long.map(|len| (i + 2, len, e.func));
                (e, next)
            };
            prefetch(b, i + AHEAD);
            // A leaf's exit line is the next one, with its entry's name.
            if e.kind == EventKind::Enter
                && let Some((len, key, id)) = &mut last
                && let Some((x, after)) =
                    self.same_length::<COLS>(&shapes.by_len[*len], key, id, b, next, thread0, local)
            {
                if !take_two::<COLS, C>(consumer, e, x) {
                    return Err(Stop::Consumer);
                }
                lines += 2;
                i = after;
                continue;
            }
            if e.kind == EventKind::Enter
                && let Some(name) = last_long
                && let Some((x, after, new_shape)) =
                    self.same_long::<COLS>(b, next, name, thread0, &tail, local)
            {
                if new_shape {
                    tail = self.tail_shape;
                    *shapes = NameShapes::new::<COLS>(tail.as_ref());
                }
                if !take_two::<COLS, C>(consumer, e, x) {
                    return Err(Stop::Consumer);
                }
                lines += 2;
                i = after;
                continue;
            }
            if !take_one::<COLS, C>(consumer, e) {
                return Err(Stop::Consumer);
            }
            lines += 1;
            i = next;
        }
        Ok((i, lines))
    }

    /// The symbolic line at `i` if its name has 1 to 15 bytes and the
    /// columns after it are where `shapes` puts them for a name of that
    /// length: its event and where the next line starts. The name's
    /// length comes from the window's words, without a byte loop, so that
    /// where the line ends is known a few instructions after it is
    /// loaded. None when it does not hold, which [`Parser::named`] then
    /// sorts out.
    #[inline(always)]
    pub(super) fn any_name<const COLS: u8>(
        &mut self,
        shapes: &NameShapes,
        b: &[u8],
        i: usize,
        thread0: u32,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize, usize, (u64, u64))> {
        let win = window(b, i)?;
        let head = u16::from_le_bytes([win[0], win[1]]);
        let enter = head == u16::from_le_bytes(*b"E ");
        let (w0, w1) = (word_at(win, 2), word_at(win, 10));
        let n0 = below_bang(w0);
        let len = if n0 < 8 { n0 } else { 8 + below_bang(w1) };
        let sh = &shapes.by_len[len & 15];
        // `0x...` is an address token to the line parser.
        let hex_prefix = (w0 as u16 | 0x2000) == u16::from_le_bytes(*b"0x");
        let ok = (enter | (head == u16::from_le_bytes(*b"X ")))
            & (shapes.fits >> len & 1 == 1)
            & !hex_prefix
            & Self::tail_fits::<COLS>(sh, win);
        if !ok {
            return None;
        }
        let key = (w0 & sh.key_mask.0, w1 & sh.key_mask.1);
        let func = match self.known(key) {
            Some(id) => id,
            None => self.new_name(key, &win[2..2 + len], &mut local.names),
        };
        let (time, thread) = self.tail::<COLS, true>(sh, win, thread0, &mut local.tids)?;
        let e = Event {
            time,
            func,
            thread,
            kind: kind(enter),
        };
        Some((e, i + sh.end.0 + 2, len, key))
    }

    /// The symbolic line at `i` if it has the shape `sh` (with `COLS`
    /// columns) of the last line, whose name text and id are `key` and
    /// `id` (updated when this line has another name of the same length):
    /// its event and where the next line starts. None when it has not,
    /// which [`Parser::named`] then sorts out.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn same_length<const COLS: u8>(
        &mut self,
        sh: &Shape,
        key: &mut (u64, u64),
        id: &mut u32,
        b: &[u8],
        i: usize,
        thread0: u32,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize)> {
        let win = window(b, i)?;
        let head = u16::from_le_bytes([win[0], win[1]]);
        let enter = head == u16::from_le_bytes(*b"E ");
        let ok = (enter | (head == u16::from_le_bytes(*b"X "))) & Self::tail_fits::<COLS>(sh, win);
        if !ok {
            return None;
        }
        let text = (
            word_at(win, 2) & sh.key_mask.0,
            word_at(win, 10) & sh.key_mask.1,
        );
        if text != *key {
            *id = self.other_name(b, i + 2, (text, sh.sp1 - 2), local)?;
            *key = text;
        }
        let (time, thread) = self.tail::<COLS, true>(sh, win, thread0, &mut local.tids)?;
        let e = Event {
            time,
            func: *id,
            thread,
            kind: kind(enter),
        };
        Some((e, i + sh.end.0 + 2))
    }

    /// The local id of the name at `j` whose text, read at the predicted
    /// length, is `predicted`; None unless that is the whole name (no byte
    /// below `!` in it, so not a shorter one padded with NULs) and not an
    /// address.
    #[cold]
    pub(super) fn other_name(
        &mut self,
        b: &[u8],
        j: usize,
        predicted: NameText,
        local: &mut LocalEvents,
    ) -> Option<u32> {
        let (key, len) = hex_key(b, j)?;
        if (key, len) != predicted || (key.0 as u16 | 0x2000) == u16::from_le_bytes(*b"0x") {
            return None;
        }
        Some(match self.known(key) {
            Some(id) => id,
            None => self.new_name(key, &b[j..j + len], &mut local.names),
        })
    }

    /// The local id of the name `name` (text `key`) that the cache does not
    /// have, cached.
    #[cold]
    pub(super) fn new_name(
        &mut self,
        key: (u64, u64),
        name: &[u8],
        names: &mut Vec<String>,
    ) -> u32 {
        let id = self.name_id(name, names);
        self.remember(key, id)
    }

    /// The symbolic event line at `i` with exactly `COLS` columns
    /// (`E main 120 1`, single spaces): its event, where the next line
    /// starts, whether its columns had a new shape and, for a name of 16
    /// bytes or more, its length. Names of up to 15
    /// bytes are cached by their text, like addresses; longer ones (C++
    /// names, mangled or not) by their length and end words
    /// ([`Parser::long_name`]). None for anything else, which the general
    /// path then sorts out.
    #[inline(always)]
    pub(super) fn named<const COLS: u8>(
        &mut self,
        b: &[u8],
        i: usize,
        thread0: u32,
        shape: &Option<Shape>,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize, bool, Option<usize>)> {
        let win = window(b, i)?;
        let enter = win[0] == b'E';
        if !((enter | (win[0] == b'X')) & (win[1] == b' ')) {
            return None;
        }
        let (func, len) = match hex_key(b, i + 2) {
            Some((key, len)) => {
                // `0x...` is an address token to the line parser.
                if (key.0 as u16 | 0x2000) == u16::from_le_bytes(*b"0x") {
                    return None;
                }
                let func = match self.known(key) {
                    Some(id) => id,
                    None => self.new_name(key, &win[2..2 + len], &mut local.names),
                };
                (func, len)
            }
            None => self.long_name(b, i + 2, &mut local.names)?,
        };
        let (e, next, new_shape) =
            self.after_name::<COLS>(b, i + 2 + len, func, kind(enter), thread0, shape, local)?;
        Some((e, next, new_shape, (len > 15).then_some(len)))
    }

    /// The exit line at `i` if its name is the `len` bytes at `at`, the
    /// name of the entry before it, whose local id is `func` (a leaf call
    /// of a function with a long name): its event, where the next line
    /// starts and whether its columns had a new shape. The name is
    /// compared in place, so that it needs no length or cache lookup.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn same_long<const COLS: u8>(
        &mut self,
        b: &[u8],
        i: usize,
        (at, len, func): (usize, usize, u32),
        thread0: u32,
        shape: &Option<Shape>,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize, bool)> {
        let j = i + 2;
        if b.get(i..j)? != b"X " || b.get(j..j + len)? != &b[at..at + len] {
            return None;
        }
        // A longer name fails the columns' checks after it.
        self.after_name::<COLS>(b, j + len, func, EventKind::Exit, thread0, shape, local)
    }

    /// The event of a symbolic line of function `func` and kind `kind`
    /// whose name ends at `j`, from the columns after it, read where the
    /// last line had them (`shape`) or else one by one: the event, where
    /// the next line starts and whether the columns had a new shape.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn after_name<const COLS: u8>(
        &mut self,
        b: &[u8],
        j: usize,
        func: u32,
        kind: EventKind,
        thread0: u32,
        shape: &Option<Shape>,
        local: &mut LocalEvents,
    ) -> Option<(Event, usize, bool)> {
        if let Some(sh) = shape
            && sh.cols == COLS
        {
            let win = window(b, j - 3)?;
            if Self::tail_fits::<COLS>(sh, win)
                && let Some((time, thread)) =
                    self.tail::<COLS, false>(sh, win, thread0, &mut local.tids)
            {
                let e = Event {
                    time,
                    func,
                    thread,
                    kind,
                };
                return Some((e, j - 3 + sh.end.0 + 2, false));
            }
        }
        let (mut time, mut thread, mut k) = (0, thread0, j);
        if COLS > 0 {
            if b[k] != b' ' {
                return None;
            }
            (time, k) = dec(b, k + 1)?;
        }
        if COLS > 1 {
            if b[k] != b' ' {
                return None;
            }
            let (tid, after) = dec(b, k + 1)?;
            thread = self.thread(tid, &mut local.tids);
            k = after;
        }
        let next = match (b[k], b.get(k + 1)) {
            (b'\n', _) => k + 1,
            (b'\r', Some(b'\n')) => k + 2,
            _ => return None,
        };
        self.tail_shape = Shape::of_tail(&b[j..next - 1]);
        let e = Event {
            time,
            func,
            thread,
            kind,
        };
        Some((e, next, true))
    }

    /// The local id and length of the name of 16 bytes or more that starts
    /// at `j` (it ends at the first byte below `!`), if it ends within
    /// [`LONG_NAME`] bytes and before the chunk does. The cache slot of its
    /// length and first and last words holds the id it had last; the name
    /// is compared with that id's whole text, so a slot that another name
    /// took, or that a chunk before left, is only a miss.
    #[inline(always)]
    pub(super) fn long_name(
        &mut self,
        b: &[u8],
        j: usize,
        names: &mut Vec<String>,
    ) -> Option<(u32, usize)> {
        let head = word(b, j)?;
        if below_bang(head) < 8 || (head as u16 | 0x2000) == u16::from_le_bytes(*b"0x") {
            return None;
        }
        // Words at fixed offsets, so that their loads do not wait for the
        // words before them.
        let mut at = 8;
        let len = loop {
            let n = below_bang(word(b, j + at)?);
            if n < 8 {
                break at + n;
            }
            at += 8;
            if at > LONG_NAME {
                return None;
            }
        };
        let name = &b[j..j + len];
        let last = word(b, j + len - 8)?;
        let slot = ((head ^ last.rotate_left(23) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> 55) as usize
            % LONG_SLOTS;
        let id = self.long_slots[slot];
        if names
            .get(id as usize)
            .is_some_and(|known| known.as_bytes() == name)
        {
            return Some((id, len));
        }
        Some((self.new_long_name(slot, name, names), len))
    }

    /// The local id of the long name `name` that cache slot `slot` did not
    /// have, cached there.
    #[cold]
    pub(super) fn new_long_name(
        &mut self,
        slot: usize,
        name: &[u8],
        names: &mut Vec<String>,
    ) -> u32 {
        let id = self.name_id(name, names);
        self.long_slots[slot] = id;
        id
    }
}
