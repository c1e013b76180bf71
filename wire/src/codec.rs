//! The byte encoding of the messages: every message travels as a frame (a
//! little-endian `u32` body length, then the body, whose first byte says
//! which message it is), written by [`Up::encode`] and [`Down::encode`],
//! read back by [`Up::decode`] and [`Down::decode`], and split off a byte
//! stream by [`Frames`]. A body that does not decode is a [`WireError`],
//! never a panic.

use std::fmt;

use crate::extents::{Memory, Overflow};
use crate::messages::{Access, Down, ThreadStep, Up};
use crate::onesided::{Epoch, EpochKind, RmaFault};
use crate::ops::{
    Block, CollKind, FlushKind, Op, RmaKind, SendMode, SplitKind, WaitKind, WinFlavor,
};
use crate::site::Site;
use crate::threads::{Level, ThreadFault, Unordered};

/// A malformed frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed message: {}", self.0)
    }
}

impl std::error::Error for WireError {}

struct W<'a>(&'a mut Vec<u8>);

impl W<'_> {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn site(&mut self, s: Site) {
        let (file, line) = s.to_raw();
        self.u32(file);
        self.u32(line);
    }
    fn list(&mut self, v: &[u32]) {
        self.u32(v.len() as u32);
        for x in v {
            self.u32(*x);
        }
    }
    fn i64s(&mut self, v: &[i64]) {
        self.u32(v.len() as u32);
        for x in v {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    /// Byte ranges `[start, end)`: their count, then each pair.
    fn ranges(&mut self, v: &[(u64, u64)]) {
        self.u32(v.len() as u32);
        for (a, b) in v {
            self.u64(*a);
            self.u64(*b);
        }
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
}

struct R<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> R<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if self.pos + n > self.buf.len() {
            return Err(WireError(format!(
                "truncated body ({} bytes, wanted {} more at {})",
                self.buf.len(),
                n,
                self.pos
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn i32(&mut self) -> Result<i32, WireError> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, WireError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn bool(&mut self) -> Result<bool, WireError> {
        Ok(self.u8()? != 0)
    }
    fn site(&mut self) -> Result<Site, WireError> {
        let file = self.u32()?;
        Ok(Site::from_raw(file, self.u32()?))
    }
    fn ranges(&mut self) -> Result<Vec<(u64, u64)>, WireError> {
        let n = self.u32()? as usize;
        if n > self.buf.len() {
            return Err(WireError(format!("list of {n} ranges in a short body")));
        }
        (0..n).map(|_| Ok((self.u64()?, self.u64()?))).collect()
    }
    fn list(&mut self) -> Result<Vec<u32>, WireError> {
        let n = self.u32()? as usize;
        if n > self.buf.len() {
            return Err(WireError(format!("list of {n} entries in a short body")));
        }
        (0..n).map(|_| self.u32()).collect()
    }
    fn i64s(&mut self) -> Result<Vec<i64>, WireError> {
        let n = self.u32()? as usize;
        if n > self.buf.len() {
            return Err(WireError(format!("list of {n} entries in a short body")));
        }
        (0..n)
            .map(|_| Ok(i64::from_le_bytes(self.take(8)?.try_into().unwrap())))
            .collect()
    }
    fn str(&mut self) -> Result<String, WireError> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| WireError("string is not UTF-8".into()))
    }
    fn done(&self) -> Result<(), WireError> {
        if self.pos == self.buf.len() {
            Ok(())
        } else {
            Err(WireError(format!(
                "{} trailing bytes",
                self.buf.len() - self.pos
            )))
        }
    }
}

fn wait_kind_code(k: WaitKind) -> u8 {
    match k {
        WaitKind::One => 0,
        WaitKind::All => 1,
        WaitKind::Any => 2,
        WaitKind::Some => 3,
    }
}

fn wait_kind(c: u8) -> Result<WaitKind, WireError> {
    Ok(match c {
        0 => WaitKind::One,
        1 => WaitKind::All,
        2 => WaitKind::Any,
        3 => WaitKind::Some,
        _ => return Err(WireError(format!("wait kind {c}"))),
    })
}

/// The entry `c` of a list of kinds in wire-code order.
fn pick<T: Copy>(all: &[T], c: u8, what: &str) -> Result<T, WireError> {
    all.get(c as usize)
        .copied()
        .ok_or_else(|| WireError(format!("{what} {c}")))
}

fn coll_code(k: CollKind) -> u8 {
    CollKind::ALL.iter().position(|x| *x == k).unwrap() as u8
}

/// The bytes of a frame's length field, before its body.
pub const FRAME_HEADER: usize = 4;

/// Starts a frame in `out`; returns the offset of its length field.
fn begin(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; FRAME_HEADER]);
    at
}

fn end(out: &mut [u8], at: usize) {
    let len = (out.len() - at - FRAME_HEADER) as u32;
    out[at..at + FRAME_HEADER].copy_from_slice(&len.to_le_bytes());
}

/// Appends the frame of `Up::Op { site, op }` to `out`, as
/// [`Up::encode`] makes it, from a borrowed call.
pub fn encode_call(site: Site, op: &Op, out: &mut Vec<u8>) {
    let at = begin(out);
    let mut w = W(out);
    w.u8(3);
    w.site(site);
    encode_op(&mut w, op);
    end(out, at);
}

/// Appends the frame body `body` (as [`Frames::next_body`] gave it) to
/// `out`, framed again, for [`Frames`] to split off later.
pub fn frame(body: &[u8], out: &mut Vec<u8>) {
    let at = begin(out);
    out.extend_from_slice(body);
    end(out, at);
}

fn encode_op(w: &mut W, op: &Op) {
    match op {
        Op::Send {
            mode,
            dest,
            tag,
            comm,
            req,
        } => {
            w.u8(1);
            w.u8(SendMode::ALL.iter().position(|m| m == mode).unwrap() as u8);
            w.i32(*dest);
            w.i32(*tag);
            w.u32(*comm);
            w.u8(req.is_some() as u8);
            w.u32(req.unwrap_or(0));
        }
        Op::Recv {
            src,
            tag,
            comm,
            req,
            blocking,
        } => {
            w.u8(2);
            w.i32(*src);
            w.i32(*tag);
            w.u32(*comm);
            w.u32(*req);
            w.u8(*blocking as u8);
        }
        Op::Wait { kind, reqs } => {
            w.u8(3);
            w.u8(wait_kind_code(*kind));
            w.list(reqs);
        }
        Op::Test { kind, reqs } => {
            w.u8(4);
            w.u8(wait_kind_code(*kind));
            w.list(reqs);
        }
        Op::Probe {
            src,
            tag,
            comm,
            blocking,
        } => {
            w.u8(5);
            w.i32(*src);
            w.i32(*tag);
            w.u32(*comm);
            w.u8(*blocking as u8);
        }
        Op::Coll { kind, comm, root } => {
            w.u8(6);
            w.u8(coll_code(*kind));
            w.u32(*comm);
            w.i32(*root);
        }
        Op::CommDup { comm } => {
            w.u8(7);
            w.u32(*comm);
        }
        Op::CommSplit { comm, color, key } => {
            w.u8(8);
            w.u32(*comm);
            w.i32(*color);
            w.i32(*key);
        }
        Op::CommCreate { comm, members } => {
            w.u8(9);
            w.u32(*comm);
            w.list(members);
        }
        Op::CommFree { comm } => {
            w.u8(10);
            w.u32(*comm);
        }
        Op::Finalize => w.u8(11),
        Op::Args {
            dtype,
            count,
            op,
            counts,
        } => {
            w.u8(40);
            w.str(dtype);
            w.i32(*count as i32);
            w.i32((*count >> 32) as i32);
            w.str(op);
            w.i64s(counts);
        }
        Op::CommSplitAs {
            how,
            comm,
            color,
            key,
        } => {
            w.u8(12);
            w.u8(SplitKind::ALL.iter().position(|x| x == how).unwrap() as u8);
            w.u32(*comm);
            w.i32(*color);
            w.i32(*key);
        }
        Op::RequestFree { req } => {
            w.u8(13);
            w.u32(*req);
        }
        Op::RequestInit { req, recv, mode } => {
            w.u8(14);
            w.u32(*req);
            w.u8(*recv as u8);
            w.u8(SendMode::ALL.iter().position(|m| m == mode).unwrap() as u8);
        }
        Op::Icoll {
            kind,
            comm,
            root,
            req,
        } => {
            w.u8(15);
            w.u8(coll_code(*kind));
            w.u32(*comm);
            w.i32(*root);
            w.u32(*req);
        }
        Op::Mprobe {
            src,
            tag,
            comm,
            req,
            blocking,
        } => {
            w.u8(16);
            w.i32(*src);
            w.i32(*tag);
            w.u32(*comm);
            w.u32(*req);
            w.u8(*blocking as u8);
        }
        Op::Mrecv {
            req,
            blocking,
            probe,
        } => {
            w.u8(17);
            w.u32(*req);
            w.u8(*blocking as u8);
            w.u32(*probe);
        }
        Op::RequestGetStatus { req } => {
            w.u8(18);
            w.u32(*req);
        }
        Op::Cancel { req } => {
            w.u8(19);
            w.u32(*req);
        }
        Op::CommIdup { comm, req, info } => {
            w.u8(20);
            w.u32(*comm);
            w.u32(*req);
            w.u8(*info as u8);
        }
        Op::CommCreateGroup { comm, members, tag } => {
            w.u8(21);
            w.u32(*comm);
            w.list(members);
            w.i32(*tag);
        }
        Op::IntercommCreate {
            local_comm,
            local_leader,
            peer_comm,
            remote_leader,
            tag,
        } => {
            w.u8(25);
            w.u32(*local_comm);
            w.i32(*local_leader);
            w.u32(*peer_comm);
            w.i32(*remote_leader);
            w.i32(*tag);
        }
        Op::IntercommMerge { comm, high } => {
            w.u8(26);
            w.u32(*comm);
            w.u8(*high as u8);
        }
        Op::WinCreate { comm, flavor } => {
            w.u8(60);
            w.u32(*comm);
            w.u8(WinFlavor::ALL.iter().position(|x| x == flavor).unwrap() as u8);
        }
        Op::WinFree { win } => {
            w.u8(61);
            w.u32(*win);
        }
        Op::WinFence { win } => {
            w.u8(62);
            w.u32(*win);
        }
        Op::Rma {
            win,
            kind,
            target,
            disp,
            bytes,
            req,
            op,
            dtype,
        } => {
            w.u8(63);
            w.u32(*win);
            w.u8(RmaKind::ALL.iter().position(|x| x == kind).unwrap() as u8);
            w.i32(*target);
            w.u64(*disp);
            w.u64(*bytes);
            w.u8(req.is_some() as u8);
            w.u32(req.unwrap_or(0));
            w.str(op);
            w.str(dtype);
        }
        Op::WinPost { win, group } => {
            w.u8(64);
            w.u32(*win);
            w.list(group);
        }
        Op::WinStart { win, group } => {
            w.u8(65);
            w.u32(*win);
            w.list(group);
        }
        Op::WinComplete { win } => {
            w.u8(66);
            w.u32(*win);
        }
        Op::WinWait { win, test } => {
            w.u8(67);
            w.u32(*win);
            w.u8(*test as u8);
        }
        Op::WinLock {
            win,
            target,
            exclusive,
        } => {
            w.u8(68);
            w.u32(*win);
            w.i32(*target);
            w.u8(*exclusive as u8);
        }
        Op::WinUnlock { win, target } => {
            w.u8(69);
            w.u32(*win);
            w.i32(*target);
        }
        Op::WinLockAll { win } => {
            w.u8(70);
            w.u32(*win);
        }
        Op::WinUnlockAll { win } => {
            w.u8(71);
            w.u32(*win);
        }
        Op::WinFlush { win, how, target } => {
            w.u8(72);
            w.u32(*win);
            w.u8(FlushKind::ALL.iter().position(|x| x == how).unwrap() as u8);
            w.i32(*target);
        }
        Op::Exchange { sends, recvs } => {
            w.u8(90);
            for blocks in [sends, recvs] {
                w.u32(blocks.len() as u32);
                for b in blocks {
                    w.i32(b.peer);
                    w.u32(b.key);
                    w.str(&b.dtype);
                    w.i64s(&[b.count]);
                }
            }
        }
        Op::Data { hash } => {
            w.u8(91);
            w.i64s(&[*hash as i64]);
        }
    }
}

fn decode_op(r: &mut R) -> Result<Op, WireError> {
    Ok(match r.u8()? {
        1 => {
            let m = r.u8()? as usize;
            let mode = *SendMode::ALL
                .get(m)
                .ok_or_else(|| WireError(format!("send mode {m}")))?;
            let dest = r.i32()?;
            let tag = r.i32()?;
            let comm = r.u32()?;
            let has = r.bool()?;
            let req = r.u32()?;
            Op::Send {
                mode,
                dest,
                tag,
                comm,
                req: has.then_some(req),
            }
        }
        2 => Op::Recv {
            src: r.i32()?,
            tag: r.i32()?,
            comm: r.u32()?,
            req: r.u32()?,
            blocking: r.bool()?,
        },
        3 => Op::Wait {
            kind: wait_kind(r.u8()?)?,
            reqs: r.list()?,
        },
        4 => Op::Test {
            kind: wait_kind(r.u8()?)?,
            reqs: r.list()?,
        },
        5 => Op::Probe {
            src: r.i32()?,
            tag: r.i32()?,
            comm: r.u32()?,
            blocking: r.bool()?,
        },
        6 => {
            let c = r.u8()? as usize;
            let kind = *CollKind::ALL
                .get(c)
                .ok_or_else(|| WireError(format!("collective kind {c}")))?;
            Op::Coll {
                kind,
                comm: r.u32()?,
                root: r.i32()?,
            }
        }
        7 => Op::CommDup { comm: r.u32()? },
        8 => Op::CommSplit {
            comm: r.u32()?,
            color: r.i32()?,
            key: r.i32()?,
        },
        9 => Op::CommCreate {
            comm: r.u32()?,
            members: r.list()?,
        },
        10 => Op::CommFree { comm: r.u32()? },
        11 => Op::Finalize,
        40 => {
            let dtype = r.str()?;
            let lo = r.i32()? as u32 as i64;
            let hi = r.i32()? as i64;
            Op::Args {
                dtype,
                count: hi << 32 | lo,
                op: r.str()?,
                counts: r.i64s()?,
            }
        }
        13 => Op::RequestFree { req: r.u32()? },
        14 => {
            let req = r.u32()?;
            let recv = r.bool()?;
            let m = r.u8()? as usize;
            Op::RequestInit {
                req,
                recv,
                mode: *SendMode::ALL
                    .get(m)
                    .ok_or_else(|| WireError(format!("send mode {m}")))?,
            }
        }
        15 => {
            let c = r.u8()? as usize;
            let kind = *CollKind::ALL
                .get(c)
                .ok_or_else(|| WireError(format!("collective kind {c}")))?;
            Op::Icoll {
                kind,
                comm: r.u32()?,
                root: r.i32()?,
                req: r.u32()?,
            }
        }
        12 => {
            let c = r.u8()? as usize;
            let how = *SplitKind::ALL
                .get(c)
                .ok_or_else(|| WireError(format!("constructor kind {c}")))?;
            Op::CommSplitAs {
                how,
                comm: r.u32()?,
                color: r.i32()?,
                key: r.i32()?,
            }
        }
        16 => Op::Mprobe {
            src: r.i32()?,
            tag: r.i32()?,
            comm: r.u32()?,
            req: r.u32()?,
            blocking: r.bool()?,
        },
        17 => Op::Mrecv {
            req: r.u32()?,
            blocking: r.bool()?,
            probe: r.u32()?,
        },
        18 => Op::RequestGetStatus { req: r.u32()? },
        19 => Op::Cancel { req: r.u32()? },
        20 => Op::CommIdup {
            comm: r.u32()?,
            req: r.u32()?,
            info: r.bool()?,
        },
        21 => Op::CommCreateGroup {
            comm: r.u32()?,
            members: r.list()?,
            tag: r.i32()?,
        },
        25 => Op::IntercommCreate {
            local_comm: r.u32()?,
            local_leader: r.i32()?,
            peer_comm: r.u32()?,
            remote_leader: r.i32()?,
            tag: r.i32()?,
        },
        26 => Op::IntercommMerge {
            comm: r.u32()?,
            high: r.bool()?,
        },
        60 => Op::WinCreate {
            comm: r.u32()?,
            flavor: pick(&WinFlavor::ALL, r.u8()?, "window flavor")?,
        },
        61 => Op::WinFree { win: r.u32()? },
        62 => Op::WinFence { win: r.u32()? },
        63 => {
            let win = r.u32()?;
            let kind = pick(&RmaKind::ALL, r.u8()?, "one-sided kind")?;
            let target = r.i32()?;
            let disp = r.u64()?;
            let bytes = r.u64()?;
            let has = r.bool()?;
            let req = r.u32()?;
            Op::Rma {
                win,
                kind,
                target,
                disp,
                bytes,
                req: has.then_some(req),
                op: r.str()?,
                dtype: r.str()?,
            }
        }
        64 => Op::WinPost {
            win: r.u32()?,
            group: r.list()?,
        },
        65 => Op::WinStart {
            win: r.u32()?,
            group: r.list()?,
        },
        66 => Op::WinComplete { win: r.u32()? },
        67 => Op::WinWait {
            win: r.u32()?,
            test: r.bool()?,
        },
        68 => Op::WinLock {
            win: r.u32()?,
            target: r.i32()?,
            exclusive: r.bool()?,
        },
        69 => Op::WinUnlock {
            win: r.u32()?,
            target: r.i32()?,
        },
        70 => Op::WinLockAll { win: r.u32()? },
        71 => Op::WinUnlockAll { win: r.u32()? },
        72 => Op::WinFlush {
            win: r.u32()?,
            how: pick(&FlushKind::ALL, r.u8()?, "flush kind")?,
            target: r.i32()?,
        },
        90 => {
            let mut blocks = || -> Result<Vec<Block>, WireError> {
                let n = r.u32()? as usize;
                if n > r.buf.len() {
                    return Err(WireError(format!("{n} blocks in a short body")));
                }
                (0..n)
                    .map(|_| {
                        Ok(Block {
                            peer: r.i32()?,
                            key: r.u32()?,
                            dtype: r.str()?,
                            count: r.i64s()?.first().copied().unwrap_or(0),
                        })
                    })
                    .collect()
            };
            let sends = blocks()?;
            let recvs = blocks()?;
            Op::Exchange { sends, recvs }
        }
        91 => Op::Data {
            hash: r.i64s()?.first().copied().unwrap_or(0) as u64,
        },
        t => return Err(WireError(format!("operation tag {t}"))),
    })
}

impl Up {
    /// Appends this message, framed, to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let at = begin(out);
        let mut w = W(out);
        match self {
            Up::Hello {
                rank,
                size,
                pid,
                key,
            } => {
                w.u8(1);
                w.u32(*rank);
                w.u32(*size);
                w.u32(*pid);
                w.u64(*key);
            }
            Up::File { id, path } => {
                w.u8(2);
                w.u32(*id);
                w.str(path);
            }
            Up::Op { site, op } => {
                w.u8(3);
                w.site(*site);
                encode_op(&mut w, op);
            }
            Up::Abort { site, code } => {
                w.u8(4);
                w.site(*site);
                w.i32(*code);
            }
            Up::Crash { site, signal } => {
                w.u8(5);
                w.site(*site);
                w.i32(*signal);
            }
            Up::Unsupported { site, name } => {
                w.u8(6);
                w.site(*site);
                w.str(name);
            }
            Up::MpiError { site, code, text } => {
                w.u8(7);
                w.site(*site);
                w.i32(*code);
                w.str(text);
            }
            Up::Exit { site, status } => {
                w.u8(8);
                w.site(*site);
                w.i32(*status);
            }
            Up::Ahead { posted, settled } => {
                w.u8(9);
                w.u8(u8::from(*posted) | u8::from(*settled) << 1);
            }
            Up::Stuck { on } => {
                w.u8(10);
                w.u8(u8::from(*on));
            }
            Up::Leaked { site, call, count } => {
                w.u8(20);
                w.site(*site);
                w.str(call);
                w.u32(*count);
            }
            Up::Invalid { site, message } => {
                w.u8(21);
                w.site(*site);
                w.str(message);
            }
            Up::Reused { site, first } => {
                w.u8(22);
                w.site(*site);
                w.site(*first);
            }
            Up::Owned {
                site,
                access,
                size,
                offset,
                owner,
                call,
                unordered,
            } => {
                w.u8(30);
                w.site(*site);
                match access {
                    Access::Load => w.u8(0),
                    Access::Store => w.u8(1),
                    Access::Call { name, writes } => {
                        w.u8(2 + u8::from(*writes));
                        w.str(name);
                    }
                }
                w.u64(*size);
                w.u64(*offset);
                w.site(*owner);
                w.str(call);
                match unordered {
                    None => w.u8(0),
                    Some(u) => {
                        w.u8(1 + u8::from(u.before_call));
                        w.u32(u.thread);
                        w.u32(u.other);
                    }
                }
            }
            Up::Watched {
                tag,
                site,
                store,
                ranges,
                after,
                point,
            } => {
                w.u8(31);
                w.u64(*tag);
                w.site(*site);
                w.u8(u8::from(*store));
                w.ranges(ranges);
                w.u32(after.len() as u32);
                for &a in after {
                    w.u64(a);
                }
                match point {
                    None => w.u8(0),
                    Some((t, v)) => {
                        w.u8(1);
                        w.u32(*t);
                        w.u32(*v);
                    }
                }
            }
            Up::OneSided {
                site,
                call,
                win,
                made,
                fault,
            } => {
                w.u8(40);
                w.site(*site);
                w.str(call);
                w.u8(u8::from(win.is_some()));
                w.u32(win.unwrap_or(0));
                w.site(*made);
                encode_fault(&mut w, fault);
            }
            Up::Lent {
                tag,
                writes,
                ranges,
            } => {
                w.u8(41);
                w.u64(*tag);
                w.u8(u8::from(*writes));
                w.ranges(ranges);
            }
            Up::Overflow { site, call, fault } => {
                w.u8(42);
                w.site(*site);
                w.str(call);
                encode_overflow(&mut w, fault);
            }
            Up::StructType {
                site,
                blocks,
                extent,
            } => {
                w.u8(44);
                w.site(*site);
                w.u32(blocks.len() as u32);
                for (disp, len, dtype) in blocks {
                    w.i64s(&[*disp, *len]);
                    w.str(dtype);
                }
                w.i64s(&[*extent]);
            }
            Up::Thread { fault } => {
                w.u8(45);
                encode_thread(&mut w, fault);
            }
            Up::Took { req, src } => {
                w.u8(46);
                w.u32(*req);
                w.u32(*src);
            }
            Up::Blocked { on } => {
                w.u8(47);
                w.u8(u8::from(*on));
            }
            Up::Unrecorded => w.u8(48),
            Up::Picked { indices } => {
                w.u8(49);
                w.list(indices);
            }
            Up::Found { src } => {
                w.u8(50);
                w.u32(*src);
            }
            Up::Granted { grants } => {
                w.u8(56);
                w.u32(grants.len() as u32);
                for &(t, n) in grants {
                    w.u32(t);
                    w.u64(n);
                }
            }
            Up::Named { comm } => {
                w.u8(51);
                w.u32(*comm);
            }
            Up::Polled { indices } => {
                w.u8(52);
                w.list(indices);
            }
            Up::Spinning => w.u8(53),
            Up::Threads => w.u8(54),
            Up::CallThread {
                call,
                thread,
                after,
                seen,
            } => {
                w.u8(55);
                w.u64(*call);
                w.u32(*thread);
                w.u32(after.len() as u32);
                for &a in after {
                    w.u64(a);
                }
                w.list(seen);
            }
            Up::ThreadStep { thread, step } => {
                w.u8(57);
                w.u32(*thread);
                match step {
                    ThreadStep::Started => w.u8(0),
                    ThreadStep::Parked => w.u8(1),
                    ThreadStep::Joined { joined } => {
                        w.u8(2);
                        w.u32(*joined);
                    }
                    ThreadStep::Ended => w.u8(3),
                    ThreadStep::Running => w.u8(4),
                }
            }
            Up::By { thread } => {
                w.u8(58);
                w.u32(*thread);
            }
        }
        end(out, at);
    }

    /// Decodes one frame body (without its length prefix).
    pub fn decode(body: &[u8]) -> Result<Up, WireError> {
        let mut r = R { buf: body, pos: 0 };
        let m = match r.u8()? {
            1 => Up::Hello {
                rank: r.u32()?,
                size: r.u32()?,
                pid: r.u32()?,
                key: r.u64()?,
            },
            2 => Up::File {
                id: r.u32()?,
                path: r.str()?,
            },
            3 => Up::Op {
                site: r.site()?,
                op: decode_op(&mut r)?,
            },
            4 => Up::Abort {
                site: r.site()?,
                code: r.i32()?,
            },
            5 => Up::Crash {
                site: r.site()?,
                signal: r.i32()?,
            },
            6 => Up::Unsupported {
                site: r.site()?,
                name: r.str()?,
            },
            7 => Up::MpiError {
                site: r.site()?,
                code: r.i32()?,
                text: r.str()?,
            },
            8 => Up::Exit {
                site: r.site()?,
                status: r.i32()?,
            },
            10 => Up::Stuck { on: r.u8()? != 0 },
            20 => Up::Leaked {
                site: r.site()?,
                call: r.str()?,
                count: r.u32()?,
            },
            21 => Up::Invalid {
                site: r.site()?,
                message: r.str()?,
            },
            22 => Up::Reused {
                site: r.site()?,
                first: r.site()?,
            },
            30 => Up::Owned {
                site: r.site()?,
                access: match r.u8()? {
                    0 => Access::Load,
                    1 => Access::Store,
                    k @ (2 | 3) => Access::Call {
                        name: r.str()?,
                        writes: k == 3,
                    },
                    k => return Err(WireError(format!("access kind {k}"))),
                },
                size: r.u64()?,
                offset: r.u64()?,
                owner: r.site()?,
                call: r.str()?,
                unordered: match r.u8()? {
                    0 => None,
                    k => Some(Unordered {
                        thread: r.u32()?,
                        other: r.u32()?,
                        before_call: k == 2,
                    }),
                },
            },
            31 => {
                let tag = r.u64()?;
                let site = r.site()?;
                let store = r.bool()?;
                let ranges = r.ranges()?;
                let n = r.u32()?;
                let mut after = Vec::new();
                for _ in 0..n {
                    after.push(r.u64()?);
                }
                let point = if r.bool()? {
                    Some((r.u32()?, r.u32()?))
                } else {
                    None
                };
                Up::Watched {
                    tag,
                    site,
                    store,
                    ranges,
                    after,
                    point,
                }
            }
            40 => {
                let site = r.site()?;
                let call = r.str()?;
                let some = r.bool()?;
                let id = r.u32()?;
                Up::OneSided {
                    site,
                    call,
                    win: some.then_some(id),
                    made: r.site()?,
                    fault: decode_fault(&mut r)?,
                }
            }
            9 => {
                let bits = r.u8()?;
                if bits > 3 {
                    return Err(WireError(format!("ahead flags {bits}")));
                }
                Up::Ahead {
                    posted: bits & 1 != 0,
                    settled: bits & 2 != 0,
                }
            }
            41 => {
                let tag = r.u64()?;
                let writes = r.bool()?;
                let ranges = r.ranges()?;
                Up::Lent {
                    tag,
                    writes,
                    ranges,
                }
            }
            42 => Up::Overflow {
                site: r.site()?,
                call: r.str()?,
                fault: decode_overflow(&mut r)?,
            },
            44 => {
                let site = r.site()?;
                let n = r.u32()? as usize;
                if n > r.buf.len() {
                    return Err(WireError(format!("{n} blocks in a short body")));
                }
                let blocks = (0..n)
                    .map(|_| {
                        let v = r.i64s()?;
                        let (&[disp, len], dtype) = (v.as_slice(), r.str()?) else {
                            return Err(WireError("a struct block of other than 2 numbers".into()));
                        };
                        Ok((disp, len, dtype))
                    })
                    .collect::<Result<_, WireError>>()?;
                let extent = r.i64s()?.first().copied().unwrap_or(0);
                Up::StructType {
                    site,
                    blocks,
                    extent,
                }
            }
            45 => Up::Thread {
                fault: decode_thread(&mut r)?,
            },
            46 => Up::Took {
                req: r.u32()?,
                src: r.u32()?,
            },
            47 => Up::Blocked { on: r.bool()? },
            48 => Up::Unrecorded,
            49 => Up::Picked { indices: r.list()? },
            50 => Up::Found { src: r.u32()? },
            51 => Up::Named { comm: r.u32()? },
            52 => Up::Polled { indices: r.list()? },
            53 => Up::Spinning,
            54 => Up::Threads,
            55 => {
                let call = r.u64()?;
                let thread = r.u32()?;
                let n = r.u32()?;
                let mut after = Vec::new();
                for _ in 0..n {
                    after.push(r.u64()?);
                }
                Up::CallThread {
                    call,
                    thread,
                    after,
                    seen: r.list()?,
                }
            }
            56 => {
                let n = r.u32()? as usize;
                if n > r.buf.len() {
                    return Err(WireError(format!("list of {n} grants in a short body")));
                }
                let mut grants = Vec::with_capacity(n);
                for _ in 0..n {
                    grants.push((r.u32()?, r.u64()?));
                }
                Up::Granted { grants }
            }
            57 => {
                let thread = r.u32()?;
                let step = match r.u8()? {
                    0 => ThreadStep::Started,
                    1 => ThreadStep::Parked,
                    2 => ThreadStep::Joined { joined: r.u32()? },
                    3 => ThreadStep::Ended,
                    4 => ThreadStep::Running,
                    t => return Err(WireError(format!("thread step {t}"))),
                };
                Up::ThreadStep { thread, step }
            }
            58 => Up::By { thread: r.u32()? },
            t => return Err(WireError(format!("message tag {t}"))),
        };
        r.done()?;
        Ok(m)
    }
}

impl Down {
    /// Appends this message, framed, to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let at = begin(out);
        let mut w = W(out);
        match self {
            Down::Go => w.u8(1),
            Down::PostRecv { req, src, tag } => {
                w.u8(2);
                w.u32(*req);
                w.i32(*src);
                w.i32(*tag);
            }
            Down::Probed { found, src, tag } => {
                w.u8(3);
                w.u8(*found as u8);
                w.i32(*src);
                w.i32(*tag);
            }
            Down::Done { indices } => {
                w.u8(4);
                w.list(indices);
            }
            Down::NewComm { id } => {
                w.u8(5);
                w.i32(*id);
            }
            Down::Cancelled { req } => {
                w.u8(6);
                w.u32(*req);
            }
            Down::Entered => w.u8(7),
            Down::To { thread } => {
                w.u8(8);
                w.u32(*thread);
            }
        }
        end(out, at);
    }

    /// Decodes one frame body (without its length prefix).
    pub fn decode(body: &[u8]) -> Result<Down, WireError> {
        let mut r = R { buf: body, pos: 0 };
        let m = match r.u8()? {
            1 => Down::Go,
            2 => Down::PostRecv {
                req: r.u32()?,
                src: r.i32()?,
                tag: r.i32()?,
            },
            3 => Down::Probed {
                found: r.bool()?,
                src: r.i32()?,
                tag: r.i32()?,
            },
            4 => Down::Done { indices: r.list()? },
            5 => Down::NewComm { id: r.i32()? },
            6 => Down::Cancelled { req: r.u32()? },
            7 => Down::Entered,
            8 => Down::To { thread: r.u32()? },
            t => return Err(WireError(format!("message tag {t}"))),
        };
        r.done()?;
        Ok(m)
    }
}

/// Collects bytes read from a stream and splits them into frame bodies.
#[derive(Default)]
pub struct Frames {
    buf: Vec<u8>,
    start: usize,
}

impl Frames {
    /// Appends freshly read bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete frame body, if one has fully arrived.
    pub fn next_body(&mut self) -> Option<&[u8]> {
        let avail = &self.buf[self.start..];
        if avail.len() < FRAME_HEADER {
            self.compact();
            return None;
        }
        let len = u32::from_le_bytes(avail[..FRAME_HEADER].try_into().unwrap()) as usize;
        if avail.len() < FRAME_HEADER + len {
            self.compact();
            return None;
        }
        let s = self.start + FRAME_HEADER;
        self.start = s + len;
        Some(&self.buf[s..s + len])
    }

    /// Whether bytes of an unfinished frame are waiting.
    pub fn has_partial(&self) -> bool {
        self.start < self.buf.len()
    }

    fn compact(&mut self) {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }
}

fn encode_epochs(w: &mut W, open: &[Epoch]) {
    w.u32(open.len() as u32);
    for e in open {
        w.u8(match e.kind {
            EpochKind::Fence => 0,
            EpochKind::Access => 1,
            EpochKind::Exposure => 2,
            EpochKind::Lock => 3,
            EpochKind::LockAll => 4,
        });
        w.u32(e.ranks.len() as u32);
        for r in &e.ranks {
            w.i32(*r);
        }
        w.site(e.site);
    }
}

fn decode_epochs(r: &mut R) -> Result<Vec<Epoch>, WireError> {
    let n = r.u32()? as usize;
    if n > r.buf.len() {
        return Err(WireError(format!("list of {n} epochs in a short body")));
    }
    (0..n)
        .map(|_| {
            let kind = match r.u8()? {
                0 => EpochKind::Fence,
                1 => EpochKind::Access,
                2 => EpochKind::Exposure,
                3 => EpochKind::Lock,
                4 => EpochKind::LockAll,
                k => return Err(WireError(format!("epoch kind {k}"))),
            };
            let m = r.u32()? as usize;
            if m > r.buf.len() {
                return Err(WireError(format!("list of {m} ranks in a short body")));
            }
            let ranks = (0..m).map(|_| r.i32()).collect::<Result<_, _>>()?;
            Ok(Epoch {
                kind,
                ranks,
                site: r.site()?,
            })
        })
        .collect()
}

/// A buffer past its memory ([`Up::Overflow`]): its fields in order, the
/// block as a flag and a rank, the memory as a tag byte and its fields.
fn encode_overflow(w: &mut W, f: &Overflow) {
    w.u32(f.arg);
    w.u8(u8::from(f.writes));
    w.u64(f.count);
    w.u32(f.ranks);
    w.u8(u8::from(f.block.is_some()));
    w.u32(f.block.unwrap_or(0));
    w.str(&f.datatype);
    w.u64(f.extent);
    w.u64(f.start as u64);
    w.u64(f.end as u64);
    w.u64(f.offset as u64);
    w.u64(f.size);
    match &f.memory {
        Memory::Heap { allocator, site } => {
            w.u8(0);
            w.str(allocator);
            w.site(*site);
        }
        Memory::Variable => w.u8(1),
    }
}

fn decode_overflow(r: &mut R) -> Result<Overflow, WireError> {
    let arg = r.u32()?;
    let writes = r.bool()?;
    let count = r.u64()?;
    let ranks = r.u32()?;
    let has_block = r.bool()?;
    let block = r.u32()?;
    Ok(Overflow {
        arg,
        writes,
        count,
        ranks,
        block: has_block.then_some(block),
        datatype: r.str()?,
        extent: r.u64()?,
        start: r.u64()? as i64,
        end: r.u64()? as i64,
        offset: r.u64()? as i64,
        size: r.u64()?,
        memory: match r.u8()? {
            0 => Memory::Heap {
                allocator: r.str()?,
                site: r.site()?,
            },
            1 => Memory::Variable,
            t => return Err(WireError(format!("overflow memory tag {t}"))),
        },
    })
}

/// A thread fault ([`Up::Thread`]): a tag byte, then its fields, levels
/// as their index in MPI's order.
fn encode_thread(w: &mut W, f: &ThreadFault) {
    match f {
        ThreadFault::NotMain {
            site,
            thread,
            level,
            init,
            any_thread,
        } => {
            w.u8(0);
            w.site(*site);
            w.u32(*thread);
            w.u8(level.index());
            w.site(*init);
            w.u8(u8::from(*any_thread));
        }
        ThreadFault::Concurrent {
            site,
            thread,
            other_site,
            other,
            level,
            init,
            overlapped,
        } => {
            w.u8(1);
            w.site(*site);
            w.u32(*thread);
            w.site(*other_site);
            w.u32(*other);
            w.u8(level.index());
            w.site(*init);
            w.u8(u8::from(*overlapped));
        }
        ThreadFault::SharedRequest {
            site,
            thread,
            other_site,
            other,
        } => {
            w.u8(3);
            w.site(*site);
            w.u32(*thread);
            w.site(*other_site);
            w.u32(*other);
        }
        ThreadFault::Collectives {
            site,
            thread,
            other_site,
            other,
        } => {
            w.u8(4);
            w.site(*site);
            w.u32(*thread);
            w.site(*other_site);
            w.u32(*other);
        }
        ThreadFault::ReusedRequest {
            site,
            thread,
            other_site,
            other,
        } => {
            w.u8(5);
            w.site(*site);
            w.u32(*thread);
            w.site(*other_site);
            w.u32(*other);
        }
        ThreadFault::Unchecked {
            site,
            thread,
            init,
            required,
            level,
        } => {
            w.u8(2);
            w.site(*site);
            w.u32(*thread);
            w.site(*init);
            w.u8(required.index());
            w.u8(level.index());
        }
    }
}

fn decode_thread(r: &mut R) -> Result<ThreadFault, WireError> {
    let level = |r: &mut R| {
        let i = r.u8()?;
        Level::from_index(i).ok_or_else(|| WireError(format!("thread level {i}")))
    };
    Ok(match r.u8()? {
        0 => ThreadFault::NotMain {
            site: r.site()?,
            thread: r.u32()?,
            level: level(r)?,
            init: r.site()?,
            any_thread: r.bool()?,
        },
        1 => ThreadFault::Concurrent {
            site: r.site()?,
            thread: r.u32()?,
            other_site: r.site()?,
            other: r.u32()?,
            level: level(r)?,
            init: r.site()?,
            overlapped: r.u8()? != 0,
        },
        2 => ThreadFault::Unchecked {
            site: r.site()?,
            thread: r.u32()?,
            init: r.site()?,
            required: level(r)?,
            level: level(r)?,
        },
        3 => ThreadFault::SharedRequest {
            site: r.site()?,
            thread: r.u32()?,
            other_site: r.site()?,
            other: r.u32()?,
        },
        4 => ThreadFault::Collectives {
            site: r.site()?,
            thread: r.u32()?,
            other_site: r.site()?,
            other: r.u32()?,
        },
        5 => ThreadFault::ReusedRequest {
            site: r.site()?,
            thread: r.u32()?,
            other_site: r.site()?,
            other: r.u32()?,
        },
        t => return Err(WireError(format!("thread fault tag {t}"))),
    })
}

/// A one-sided fault ([`Up::OneSided`]): a tag byte, then its fields.
fn encode_fault(w: &mut W, f: &RmaFault) {
    match f {
        RmaFault::NoAccessEpoch { target } => {
            w.u8(0);
            w.i32(*target);
        }
        RmaFault::NoLock { target } => {
            w.u8(1);
            w.i32(*target);
        }
        RmaFault::NoLockAll => w.u8(2),
        RmaFault::NoPassiveEpoch => w.u8(3),
        RmaFault::NoStart => w.u8(4),
        RmaFault::NoPost => w.u8(5),
        RmaFault::AlreadyOpen { open } => {
            w.u8(6);
            encode_epochs(w, std::slice::from_ref(open));
        }
        RmaFault::StillOpen { open } => {
            w.u8(7);
            encode_epochs(w, open);
        }
        RmaFault::Mixed { passive, open } => {
            w.u8(8);
            w.u8(u8::from(*passive));
            encode_epochs(w, open);
        }
        RmaFault::TargetOutside { target, size } => {
            w.u8(9);
            w.i32(*target);
            w.u32(*size);
        }
        RmaFault::BytesOutside {
            target,
            disp,
            unit,
            count,
            start,
            end,
            size,
        } => {
            w.u8(10);
            w.i32(*target);
            for v in [disp, unit] {
                w.u64(*v as u64);
            }
            w.i32(*count);
            for v in [start, end, size] {
                w.u64(*v as u64);
            }
        }
        RmaFault::NullDatatype { origin, count } => {
            w.u8(11);
            w.u8(u8::from(*origin));
            w.i32(*count);
        }
        RmaFault::NullBuffer { count } => {
            w.u8(12);
            w.i32(*count);
        }
        RmaFault::NullMemory { size } => {
            w.u8(13);
            w.u64(*size as u64);
        }
        RmaFault::ShortMemory { size, mapped } => {
            w.u8(14);
            w.u64(*size as u64);
            w.u64(*mapped as u64);
        }
        RmaFault::Overlapped { fence, lock } => {
            w.u8(15);
            encode_epochs(w, &[fence.clone(), lock.clone()]);
        }
    }
}

fn decode_fault(r: &mut R) -> Result<RmaFault, WireError> {
    Ok(match r.u8()? {
        0 => RmaFault::NoAccessEpoch { target: r.i32()? },
        1 => RmaFault::NoLock { target: r.i32()? },
        2 => RmaFault::NoLockAll,
        3 => RmaFault::NoPassiveEpoch,
        4 => RmaFault::NoStart,
        5 => RmaFault::NoPost,
        6 => {
            let mut open = decode_epochs(r)?;
            if open.len() != 1 {
                return Err(WireError(format!("{} epochs already open", open.len())));
            }
            RmaFault::AlreadyOpen {
                open: open.remove(0),
            }
        }
        7 => RmaFault::StillOpen {
            open: decode_epochs(r)?,
        },
        8 => RmaFault::Mixed {
            passive: r.bool()?,
            open: decode_epochs(r)?,
        },
        9 => RmaFault::TargetOutside {
            target: r.i32()?,
            size: r.u32()?,
        },
        10 => RmaFault::BytesOutside {
            target: r.i32()?,
            disp: r.u64()? as i64,
            unit: r.u64()? as i64,
            count: r.i32()?,
            start: r.u64()? as i64,
            end: r.u64()? as i64,
            size: r.u64()? as i64,
        },
        11 => RmaFault::NullDatatype {
            origin: r.bool()?,
            count: r.i32()?,
        },
        12 => RmaFault::NullBuffer { count: r.i32()? },
        13 => RmaFault::NullMemory {
            size: r.u64()? as i64,
        },
        14 => RmaFault::ShortMemory {
            size: r.u64()? as i64,
            mapped: r.u64()? as i64,
        },
        15 => {
            let two = decode_epochs(r)?;
            let [fence, lock]: [Epoch; 2] = two
                .try_into()
                .map_err(|v: Vec<Epoch>| WireError(format!("{} overlapping epochs", v.len())))?;
            RmaFault::Overlapped { fence, lock }
        }
        k => return Err(WireError(format!("one-sided fault {k}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ANY, PROC_NULL, UNDEFINED};

    fn round_up(m: Up) {
        let mut out = Vec::new();
        m.encode(&mut out);
        // A call framed from a borrow is the same frame.
        if let Up::Op { site, op } = &m {
            let mut borrowed = Vec::new();
            encode_call(*site, op, &mut borrowed);
            assert_eq!(borrowed, out);
        }
        let mut f = Frames::default();
        // Feed byte by byte: framing must not depend on read sizes.
        let mut got = Vec::new();
        for b in &out {
            f.push(std::slice::from_ref(b));
            while let Some(body) = f.next_body() {
                got.push(Up::decode(body).unwrap());
            }
        }
        assert_eq!(got, vec![m]);
        assert!(!f.has_partial());
        // A body framed again is the message as it was sent.
        let mut f = Frames::default();
        f.push(&out);
        let mut again = Vec::new();
        frame(f.next_body().unwrap(), &mut again);
        assert_eq!(again, out);
    }

    fn round_down(m: Down) {
        let mut out = Vec::new();
        m.encode(&mut out);
        assert_eq!(Down::decode(&out[4..]).unwrap(), m);
    }

    #[test]
    fn every_up_message_round_trips() {
        let site = Site::Line { file: 3, line: 42 };
        round_up(Up::Hello {
            rank: 2,
            size: 4,
            pid: 99,
            key: 0x0123_4567_89ab_cdef,
        });
        round_up(Up::Took { req: 7, src: 3 });
        round_up(Up::Blocked { on: true });
        round_up(Up::Unrecorded);
        round_up(Up::Picked {
            indices: vec![0, 2],
        });
        round_up(Up::Polled { indices: vec![1] });
        round_up(Up::Spinning);
        round_up(Up::Threads);
        for step in [
            ThreadStep::Started,
            ThreadStep::Parked,
            ThreadStep::Joined { joined: 2 },
            ThreadStep::Ended,
            ThreadStep::Running,
        ] {
            round_up(Up::ThreadStep { thread: 1, step });
        }
        round_up(Up::By { thread: 4 });
        round_up(Up::File {
            id: 1,
            path: "a/b.c".into(),
        });
        for op in [
            Op::Send {
                mode: SendMode::Sync,
                dest: 1,
                tag: ANY,
                comm: 7,
                req: Some(5),
            },
            Op::Send {
                mode: SendMode::Buffered,
                dest: 2,
                tag: 3,
                comm: 0,
                req: None,
            },
            Op::Send {
                mode: SendMode::Ready,
                dest: 0,
                tag: 1,
                comm: 4,
                req: Some(9),
            },
            Op::Send {
                mode: SendMode::Standard,
                dest: PROC_NULL,
                tag: 0,
                comm: 0,
                req: None,
            },
            Op::Recv {
                src: ANY,
                tag: 9,
                comm: 0,
                req: 3,
                blocking: true,
            },
            Op::Wait {
                kind: WaitKind::Some,
                reqs: vec![1, 2, 3],
            },
            Op::Test {
                kind: WaitKind::Any,
                reqs: vec![],
            },
            Op::Probe {
                src: 0,
                tag: ANY,
                comm: 1,
                blocking: false,
            },
            Op::Mprobe {
                src: ANY,
                tag: 4,
                comm: 1,
                req: 12,
                blocking: true,
            },
            Op::Mrecv {
                req: 13,
                blocking: false,
                probe: 12,
            },
            Op::RequestGetStatus { req: 14 },
            Op::Cancel { req: 15 },
            Op::CommIdup {
                comm: 2,
                req: 16,
                info: true,
            },
            Op::CommCreateGroup {
                comm: 0,
                members: vec![0, 2, 4],
                tag: 9,
            },
            Op::Coll {
                kind: CollKind::Alltoall,
                comm: 2,
                root: 0,
            },
            Op::Icoll {
                kind: CollKind::Iallreduce,
                comm: 2,
                root: 0,
                req: 9,
            },
            Op::CommDup { comm: 0 },
            Op::CommSplit {
                comm: 0,
                color: UNDEFINED,
                key: 3,
            },
            Op::CommCreate {
                comm: 0,
                members: vec![0, 2],
            },
            Op::CommFree { comm: 4 },
            Op::IntercommCreate {
                local_comm: 2,
                local_leader: 0,
                peer_comm: 0,
                remote_leader: 1,
                tag: 99,
            },
            Op::IntercommMerge {
                comm: 5,
                high: true,
            },
            Op::RequestFree { req: 12 },
            Op::RequestInit {
                req: 3,
                recv: false,
                mode: SendMode::Ready,
            },
            Op::RequestInit {
                req: 4,
                recv: true,
                mode: SendMode::Standard,
            },
            Op::Finalize,
            Op::WinFree { win: 9 },
            Op::WinFence { win: 9 },
            Op::Rma {
                win: 9,
                kind: RmaKind::GetAcc,
                target: 1,
                disp: 1 << 40,
                bytes: 24,
                req: Some(3),
                op: "MPI_SUM".into(),
                dtype: "MPI_INT".into(),
            },
            Op::Rma {
                win: 9,
                kind: RmaKind::Put,
                target: 0,
                disp: 0,
                bytes: 8,
                req: None,
                op: String::new(),
                dtype: String::new(),
            },
            Op::WinPost {
                win: 9,
                group: vec![0, 2],
            },
            Op::WinStart {
                win: 9,
                group: vec![1],
            },
            Op::WinComplete { win: 9 },
            Op::WinWait { win: 9, test: true },
            Op::WinLock {
                win: 9,
                target: 1,
                exclusive: true,
            },
            Op::WinUnlock { win: 9, target: 1 },
            Op::WinLockAll { win: 9 },
            Op::WinUnlockAll { win: 9 },
            Op::Args {
                dtype: "MPI_INT".into(),
                count: -(1 << 40) + 3,
                op: String::new(),
                counts: Vec::new(),
            },
            Op::Args {
                dtype: String::new(),
                count: 1 << 33,
                op: "MPI_SUM".into(),
                counts: vec![2, -(1 << 35), 0],
            },
            Op::Exchange {
                sends: vec![Block {
                    peer: 1,
                    key: 3,
                    dtype: "[(MPI_INT,2),(MPI_DOUBLE,1)]".into(),
                    count: 1 << 34,
                }],
                recvs: Vec::new(),
            },
            Op::Data {
                hash: 0xfedc_ba98_7654_3210,
            },
        ] {
            round_up(Up::Op { site, op });
        }
        for kind in CollKind::ALL {
            round_up(Up::Op {
                site,
                op: Op::Coll {
                    kind,
                    comm: 3,
                    root: 1,
                },
            });
        }
        for flavor in WinFlavor::ALL {
            round_up(Up::Op {
                site,
                op: Op::WinCreate { comm: 4, flavor },
            });
        }
        for how in FlushKind::ALL {
            round_up(Up::Op {
                site,
                op: Op::WinFlush {
                    win: 4,
                    how,
                    target: 2,
                },
            });
        }
        for how in SplitKind::ALL {
            round_up(Up::Op {
                site,
                op: Op::CommSplitAs {
                    how,
                    comm: 2,
                    color: UNDEFINED,
                    key: 5,
                },
            });
        }
        round_up(Up::Abort { site, code: 3 });
        round_up(Up::Exit { site, status: 3 });
        round_up(Up::MpiError {
            site,
            code: 15,
            text: "Message truncated".into(),
        });
        round_up(Up::Crash { site, signal: 11 });
        for (posted, settled) in [(true, false), (false, true), (true, true)] {
            round_up(Up::Ahead { posted, settled });
        }
        round_up(Up::Stuck { on: true });
        round_up(Up::Stuck { on: false });
        round_up(Up::Unsupported {
            site,
            name: "MPI_Bsend".into(),
        });
        round_up(Up::Leaked {
            site,
            call: "MPI_Type_vector".into(),
            count: 3,
        });
        round_up(Up::Invalid {
            site,
            message: "count -1 is negative".into(),
        });
        round_up(Up::Reused {
            site,
            first: Site::Table(3),
        });
        round_up(Up::Thread {
            fault: ThreadFault::NotMain {
                site,
                thread: 2,
                level: Level::Funneled,
                init: Site::Table(0),
                any_thread: false,
            },
        });
        round_up(Up::Thread {
            fault: ThreadFault::NotMain {
                site,
                thread: 0,
                level: Level::Funneled,
                init: Site::Table(0),
                any_thread: true,
            },
        });
        round_up(Up::Thread {
            fault: ThreadFault::Concurrent {
                site,
                thread: 1,
                other_site: Site::Table(4),
                other: 0,
                level: Level::Serialized,
                init: Site::Table(0),
                overlapped: true,
            },
        });
        round_up(Up::Thread {
            fault: ThreadFault::SharedRequest {
                site,
                thread: 1,
                other_site: Site::Table(9),
                other: 2,
            },
        });
        round_up(Up::Thread {
            fault: ThreadFault::Collectives {
                site,
                thread: 0,
                other_site: Site::Table(9),
                other: 1,
            },
        });
        round_up(Up::Thread {
            fault: ThreadFault::ReusedRequest {
                site,
                thread: 1,
                other_site: Site::Table(7),
                other: 0,
            },
        });
        round_up(Up::Thread {
            fault: ThreadFault::Unchecked {
                site,
                thread: 1,
                init: Site::Table(0),
                required: Level::Multiple,
                level: Level::Serialized,
            },
        });
        for access in [
            Access::Load,
            Access::Store,
            Access::Call {
                name: "MPI_Irecv".into(),
                writes: true,
            },
            Access::Call {
                name: "MPI_Isend".into(),
                writes: false,
            },
        ] {
            round_up(Up::Owned {
                site,
                access,
                size: 4,
                offset: 1 << 40,
                owner: Site::Table(2),
                call: "MPI_Isend".into(),
                unordered: None,
            });
        }
        round_up(Up::Owned {
            site,
            access: Access::Load,
            size: 8,
            offset: 0,
            owner: Site::Table(2),
            call: "MPI_Irecv".into(),
            unordered: Some(Unordered {
                thread: 2,
                other: 0,
                before_call: true,
            }),
        });
        round_up(Up::Watched {
            tag: u64::MAX,
            site,
            store: true,
            ranges: vec![(0, 8), (16, 1 << 33)],
            after: Vec::new(),
            point: None,
        });
        round_up(Up::Watched {
            tag: 3,
            site,
            store: false,
            ranges: vec![(4, 8)],
            after: vec![17, 3],
            point: Some((2, 9)),
        });
        round_up(Up::Granted {
            grants: vec![(0, 3), (5, 1 << 40)],
        });
        round_up(Up::CallThread {
            call: 1 << 40,
            thread: 3,
            after: vec![0, 1 << 35],
            seen: vec![4, 0, 7, 2],
        });
        assert!(Up::decode(&[30, 0, 0, 0, 0, 0, 0, 0, 0, 7]).is_err());
        let epoch = |kind, ranks: Vec<i32>| Epoch {
            kind,
            ranks,
            site: Site::Table(4),
        };
        for (win, fault) in [
            (Some(3), RmaFault::NoAccessEpoch { target: 1 }),
            (Some(3), RmaFault::NoLock { target: PROC_NULL }),
            (Some(3), RmaFault::NoLockAll),
            (Some(3), RmaFault::NoPassiveEpoch),
            (Some(3), RmaFault::NoStart),
            (Some(3), RmaFault::NoPost),
            (
                Some(3),
                RmaFault::AlreadyOpen {
                    open: epoch(EpochKind::Lock, vec![1]),
                },
            ),
            (
                Some(3),
                RmaFault::StillOpen {
                    open: vec![
                        epoch(EpochKind::Access, vec![0, 2]),
                        epoch(EpochKind::Exposure, vec![]),
                        epoch(EpochKind::LockAll, vec![]),
                    ],
                },
            ),
            (
                Some(3),
                RmaFault::Mixed {
                    passive: true,
                    open: vec![epoch(EpochKind::Fence, vec![])],
                },
            ),
            (
                Some(3),
                RmaFault::Overlapped {
                    fence: epoch(EpochKind::Fence, vec![]),
                    lock: epoch(EpochKind::Lock, vec![1]),
                },
            ),
            (
                Some(0),
                RmaFault::TargetOutside {
                    target: -7,
                    size: 2,
                },
            ),
            (
                Some(9),
                RmaFault::BytesOutside {
                    target: 1,
                    disp: -4,
                    unit: 8,
                    count: 3,
                    start: -32,
                    end: 1 << 40,
                    size: 16,
                },
            ),
            (
                Some(3),
                RmaFault::NullDatatype {
                    origin: false,
                    count: 2,
                },
            ),
            (Some(3), RmaFault::NullBuffer { count: 5 }),
            (None, RmaFault::NullMemory { size: 64 }),
            (
                None,
                RmaFault::ShortMemory {
                    size: 1 << 40,
                    mapped: 4096,
                },
            ),
        ] {
            round_up(Up::OneSided {
                site,
                call: "MPI_Put".into(),
                win,
                made: Site::Table(1),
                fault,
            });
        }
        let mut bad = vec![40];
        bad.extend([0; 21]);
        bad.push(99);
        assert!(Up::decode(&bad).is_err());
    }

    #[test]
    fn lent_buffers_round_trip() {
        for writes in [false, true] {
            round_up(Up::Lent {
                tag: 3 | 2 << 32,
                writes,
                ranges: vec![(0, 8), (24, 1 << 40)],
            });
        }
        round_up(Up::Lent {
            tag: u64::MAX,
            writes: true,
            ranges: vec![],
        });
        // A list longer than its body is refused, not allocated.
        let mut bad = vec![41];
        bad.extend([0; 9]);
        bad.extend(u32::MAX.to_le_bytes());
        assert!(Up::decode(&bad).is_err());
    }

    #[test]
    fn overflows_round_trip() {
        for (block, memory) in [
            (
                None,
                Memory::Heap {
                    allocator: "malloc".into(),
                    site: Site::Addr {
                        module: fib_module(),
                        offset: 77,
                    },
                },
            ),
            (Some(3), Memory::Variable),
        ] {
            round_up(Up::Overflow {
                site: Site::Table(4),
                call: "MPI_Gatherv".into(),
                fault: Overflow {
                    arg: 3,
                    writes: true,
                    count: 12,
                    ranks: 4,
                    block,
                    datatype: "MPI_INT".into(),
                    extent: 4,
                    start: -8,
                    end: 40,
                    offset: 16,
                    size: 32,
                    memory,
                },
            });
        }
        let mut bad = vec![42];
        bad.extend([0; 8]);
        bad.extend(3u32.to_le_bytes());
        bad.extend(b"MPI");
        bad.extend([0; 73]);
        bad.push(9);
        assert!(Up::decode(&bad).is_err());
    }

    fn fib_module() -> u32 {
        crate::module_id("/tmp/program")
    }

    #[test]
    fn struct_types_round_trip() {
        round_up(Up::StructType {
            site: Site::default(),
            blocks: vec![(0, 1, "MPI_CHAR".into()), (1 << 33, 3, "MPI_DOUBLE".into())],
            extent: 16,
        });
    }

    #[test]
    fn every_down_message_round_trips() {
        round_down(Down::Go);
        round_down(Down::Cancelled { req: 9 });
        round_down(Down::Entered);
        round_down(Down::To { thread: 3 });
        round_down(Down::PostRecv {
            req: 4,
            src: 1,
            tag: 17,
        });
        round_down(Down::Probed {
            found: true,
            src: 0,
            tag: 2,
        });
        round_down(Down::Done {
            indices: vec![0, 2],
        });
        round_down(Down::NewComm { id: -1 });
    }

    #[test]
    fn collective_codes_stay_where_they_were() {
        // Codes are positions in `CollKind::ALL`: the kinds fib modelled
        // first keep theirs, the later ones follow.
        assert_eq!(coll_code(CollKind::Barrier), 0);
        assert_eq!(coll_code(CollKind::Alltoall), 7);
        assert_eq!(coll_code(CollKind::Gatherv), 8);
        assert_eq!(coll_code(CollKind::ReduceScatterBlock), 16);
        let mut out = Vec::new();
        Up::Op {
            site: Site::Unknown,
            op: Op::Coll {
                kind: CollKind::Scan,
                comm: 0,
                root: 0,
            },
        }
        .encode(&mut out);
        // length, message tag, two site words, operation tag, kind code.
        assert_eq!(out[4 + 1 + 8 + 1], 13);
        assert_eq!(coll_code(CollKind::Ibarrier), 17);
        assert_eq!(coll_code(CollKind::IreduceScatterBlock), 33);
        assert_eq!(coll_code(CollKind::NeighborAllgather), 34);
        assert_eq!(coll_code(CollKind::IneighborAlltoallw), 43);
        assert!(Up::decode(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 6, 44, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        assert!(Up::decode(&[
            3, 0, 0, 0, 0, 0, 0, 0, 0, 12, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        ])
        .is_err());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(Up::decode(&[]).is_err());
        assert!(Up::decode(&[3, 1, 2]).is_err());
        assert!(Up::decode(&[99]).is_err());
        assert!(Down::decode(&[4, 255, 255, 255, 255]).is_err());
    }
}
