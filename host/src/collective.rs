//! Collectives among devices: a [`Communicator`] per device, with NCCL's operations and
//! semantics (all-gather, reduce-scatter, all-reduce, all-to-all, send and receive, and
//! [`split`](Communicator::split) into groups), so that a distributed program is written once.
//!
//! The CPU backend runs several devices in one process ([`Communicator::cpu_group`]): each is a
//! [`Gpu::cpu`] of its own, driven from its own thread, and the communicators exchange through
//! shared memory. Every distributed check runs there without a GPU. As with NCCL, every member of
//! a group calls the same collectives in the same order; a member that does not come is reported
//! as an error after [`TIMEOUT`], instead of a hang.
//!
//! Buffers are a device's [`DeviceBuffer`]s, elements in rank order where a collective
//! concatenates or splits (NCCL's layout: rank `r`'s part is the `r`-th contiguous chunk).
//! Reductions add in rank order, so every member gets the same bits.
//!
//! # Example
//! ```
//! use cute_rs_host::collective::Communicator;
//! // Four simulated devices, one thread each: every device contributes [rank, rank].
//! let sums: Vec<Vec<f32>> = std::thread::scope(|s| {
//!     let handles: Vec<_> = Communicator::cpu_group(4)
//!         .into_iter()
//!         .map(|comm| s.spawn(move || -> cute_rs_host::Result<Vec<f32>> {
//!             let gpu = comm.gpu();
//!             let mine = gpu.upload(&[comm.rank() as f32; 2])?;
//!             let mut all = gpu.alloc::<f32>(8)?;
//!             comm.all_gather(&mine, &mut all)?;
//!             let mut sum = gpu.alloc::<f32>(2)?;
//!             comm.all_reduce(&mine, &mut sum)?;
//!             assert_eq!(gpu.download(&all)?, [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
//!             gpu.download(&sum)
//!         }))
//!         .collect();
//!     handles.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
//! });
//! assert!(sums.iter().all(|s| s == &[6.0, 6.0]));
//! ```

use std::any::Any;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::{DeviceBuffer, DeviceElem, Gpu, HostError, Result};

/// How long a member waits for the others of its group before the collective fails.
pub const TIMEOUT: Duration = Duration::from_secs(120);

/// Elements a reduction can add (NCCL's `ncclSum` types).
pub trait Summable: DeviceElem {
    /// `self + other`.
    fn sum(self, other: Self) -> Self;
}

macro_rules! summable {
    ($($t:ty),*) => {$(
        impl Summable for $t {
            #[inline]
            fn sum(self, other: Self) -> Self {
                self + other
            }
        }
    )*};
}
summable!(f32, f64, i32, i64, u32, u64);

/// One device's member of a group: its rank, the group's size, and the device it drives.
///
/// # Example
/// ```
/// let comms = cute_rs_host::collective::Communicator::cpu_group(3);
/// assert_eq!(comms.iter().map(|c| (c.rank(), c.size())).collect::<Vec<_>>(), [(0, 3), (1, 3), (2, 3)]);
/// ```
pub struct Communicator {
    rank: usize,
    gpu: Arc<Gpu>,
    group: Arc<Group>,
    /// Splits made so far (every member makes the same ones, so the count names a split).
    splits: Mutex<usize>,
}

/// What the members of a group share: the slots of the round in flight, the mailboxes of
/// sends, and the groups split from it.
struct Group {
    size: usize,
    round: Mutex<Round>,
    arrived: Condvar,
    mail: Mutex<HashMap<(usize, usize), VecDeque<Box<dyn Any + Send>>>>,
    delivered: Condvar,
    children: Mutex<HashMap<(usize, usize), Arc<Group>>>,
}

/// A collective in flight: each member's contribution, and how many have taken the results (the
/// last clears the slots for the next).
struct Round {
    slots: Vec<Option<Arc<dyn Any + Send + Sync>>>,
    taken: usize,
}

impl Group {
    fn new(size: usize) -> Arc<Group> {
        Arc::new(Group {
            size,
            round: Mutex::new(Round { slots: vec![None; size], taken: 0 }),
            arrived: Condvar::new(),
            mail: Mutex::new(HashMap::new()),
            delivered: Condvar::new(),
            children: Mutex::new(HashMap::new()),
        })
    }
}

/// The error of a collective whose group lost a member to a panic.
fn poisoned(what: &str) -> HostError {
    HostError::Invalid(format!("{what}: a member of the group panicked"))
}

/// A collective's error: which member, what it waited for.
fn timeout(what: &str, rank: usize, size: usize) -> HostError {
    HostError::Invalid(format!("{what}: rank {rank} of {size} waited {} s for the other members (each must call the same collectives in the same order)", TIMEOUT.as_secs()))
}

impl Communicator {
    /// `n` devices of the CPU backend in one group, rank `i` driving a [`Gpu::cpu`] of its own:
    /// give each to a thread of its own.
    pub fn cpu_group(n: usize) -> Vec<Communicator> {
        let group = Group::new(n);
        (0..n).map(|rank| Communicator { rank, gpu: Arc::new(Gpu::cpu()), group: group.clone(), splits: Mutex::new(0) }).collect()
    }

    /// This member's rank, `0..size`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Members of the group.
    pub fn size(&self) -> usize {
        self.group.size
    }

    /// The device this member drives.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Every member's `mine`, by rank, once all have given theirs.
    fn exchange<T: Send + Sync + 'static>(&self, what: &str, mine: T) -> Result<Vec<Arc<T>>> {
        let g = &self.group;
        let deadline = Instant::now() + TIMEOUT;
        let mut round = g.round.lock().map_err(|_| poisoned(what))?;
        // A member still taking the previous round's results: wait for the slots to clear.
        while round.slots[self.rank].is_some() {
            round = wait(&g.arrived, round, deadline).ok_or_else(|| timeout(what, self.rank, g.size))?;
        }
        round.slots[self.rank] = Some(Arc::new(mine));
        g.arrived.notify_all();
        while round.slots.iter().any(Option::is_none) {
            round = wait(&g.arrived, round, deadline).ok_or_else(|| timeout(what, self.rank, g.size))?;
        }
        // The round closes only once every member has taken the results, this one included.
        let all: Vec<Arc<dyn Any + Send + Sync>> = round.slots.iter().map(|s| s.clone().expect("every slot is filled")).collect();
        round.taken += 1;
        if round.taken == g.size {
            // The last to take the results opens the next round.
            round.slots.iter_mut().for_each(|s| *s = None);
            round.taken = 0;
            g.arrived.notify_all();
        }
        all.into_iter()
            .map(|a| a.downcast::<T>().map_err(|_| HostError::Invalid(format!("{what}: members passed different element types"))))
            .collect()
    }

    /// Every member's elements of `send`, by rank; all must have one length.
    fn parts<T: DeviceElem>(&self, what: &str, send: &DeviceBuffer<T>) -> Result<Vec<Arc<Vec<T>>>> {
        let parts = self.exchange(what, self.gpu.download(send)?)?;
        if parts.iter().any(|p| p.len() != parts[0].len()) {
            let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
            return Err(HostError::Invalid(format!("{what}: the members' buffers differ in length ({lens:?})")));
        }
        Ok(parts)
    }

    /// `recv` = every member's `send`, concatenated in rank order (`ncclAllGather`).
    ///
    /// # Errors
    /// `Invalid` unless `recv` holds `size` times `send`'s elements and every member's `send` has
    /// the same length; a member's timeout.
    pub fn all_gather<T: DeviceElem>(&self, send: &DeviceBuffer<T>, recv: &mut DeviceBuffer<T>) -> Result<()> {
        if recv.len() != send.len() * self.size() {
            return Err(HostError::Invalid(format!("all_gather: recv holds {} elements, not {} x {}", recv.len(), self.size(), send.len())));
        }
        let parts = self.parts("all_gather", send)?;
        let all: Vec<T> = parts.iter().flat_map(|p| p.iter().copied()).collect();
        self.gpu.write(recv, &all)
    }

    /// `recv` = part `rank` of the sum of every member's `send` (split into `size` contiguous
    /// parts; `ncclReduceScatter` with `ncclSum`), added in rank order.
    ///
    /// # Errors
    /// `Invalid` unless `send` holds `size` times `recv`'s elements, the same for every member; a
    /// member's timeout.
    pub fn reduce_scatter<T: Summable>(&self, send: &DeviceBuffer<T>, recv: &mut DeviceBuffer<T>) -> Result<()> {
        if send.len() != recv.len() * self.size() {
            return Err(HostError::Invalid(format!("reduce_scatter: send holds {} elements, not {} x {}", send.len(), self.size(), recv.len())));
        }
        let parts = self.parts("reduce_scatter", send)?;
        let n = recv.len();
        let mine: Vec<T> = (0..n).map(|i| sum_over(&parts, self.rank * n + i)).collect();
        self.gpu.write(recv, &mine)
    }

    /// `recv` = the sum of every member's `send`, added in rank order (`ncclAllReduce` with
    /// `ncclSum`).
    ///
    /// # Errors
    /// `Invalid` unless `send` and `recv` have one length, the same for every member; a
    /// member's timeout.
    pub fn all_reduce<T: Summable>(&self, send: &DeviceBuffer<T>, recv: &mut DeviceBuffer<T>) -> Result<()> {
        if send.len() != recv.len() {
            return Err(HostError::Invalid(format!("all_reduce: send holds {} elements, recv {}", send.len(), recv.len())));
        }
        let parts = self.parts("all_reduce", send)?;
        let all: Vec<T> = (0..recv.len()).map(|i| sum_over(&parts, i)).collect();
        self.gpu.write(recv, &all)
    }

    /// Each member's `send` in `size` contiguous parts, part `r` to rank `r`; `recv` = the parts
    /// this member receives, in rank order (NCCL's all-to-all of grouped sends and receives).
    ///
    /// # Errors
    /// `Invalid` unless `send` and `recv` have one length that `size` divides, the same for
    /// every member; a member's timeout.
    pub fn all_to_all<T: DeviceElem>(&self, send: &DeviceBuffer<T>, recv: &mut DeviceBuffer<T>) -> Result<()> {
        if send.len() != recv.len() || send.len() % self.size() != 0 {
            return Err(HostError::Invalid(format!("all_to_all: send holds {} elements, recv {}, in {} parts", send.len(), recv.len(), self.size())));
        }
        let parts = self.parts("all_to_all", send)?;
        let n = send.len() / self.size();
        let mine: Vec<T> = parts.iter().flat_map(|p| p[self.rank * n..(self.rank + 1) * n].iter().copied()).collect();
        self.gpu.write(recv, &mine)
    }

    /// Sends `buf` to member `peer` (`ncclSend`); the peer takes it with [`recv`](Self::recv).
    /// Returns once the elements are handed over.
    ///
    /// # Errors
    /// `Invalid` for a peer outside the group.
    pub fn send<T: DeviceElem>(&self, buf: &DeviceBuffer<T>, peer: usize) -> Result<()> {
        if peer >= self.size() {
            return Err(HostError::Invalid(format!("send: peer {peer} is not in a group of {}", self.size())));
        }
        let data = self.gpu.download(buf)?;
        let g = &self.group;
        g.mail.lock().map_err(|_| poisoned("send"))?.entry((self.rank, peer)).or_default().push_back(Box::new(data));
        g.delivered.notify_all();
        Ok(())
    }

    /// Receives into `buf` what member `peer` sent next (`ncclRecv`).
    ///
    /// # Errors
    /// `Invalid` for a peer outside the group, or when what arrived has another length or
    /// element type than `buf`; a timeout when nothing comes.
    pub fn recv<T: DeviceElem>(&self, buf: &mut DeviceBuffer<T>, peer: usize) -> Result<()> {
        if peer >= self.size() {
            return Err(HostError::Invalid(format!("recv: peer {peer} is not in a group of {}", self.size())));
        }
        let g = &self.group;
        let deadline = Instant::now() + TIMEOUT;
        let mut mail = g.mail.lock().map_err(|_| poisoned("recv"))?;
        let data = loop {
            if let Some(d) = mail.get_mut(&(peer, self.rank)).and_then(VecDeque::pop_front) {
                break d;
            }
            mail = wait(&g.delivered, mail, deadline).ok_or_else(|| timeout("recv", self.rank, g.size))?;
        };
        drop(mail);
        let data = data.downcast::<Vec<T>>().map_err(|_| HostError::Invalid(format!("recv: rank {peer} sent another element type than {}", T::NAME)))?;
        if data.len() != buf.len() {
            return Err(HostError::Invalid(format!("recv: rank {peer} sent {} elements into a buffer of {}", data.len(), buf.len())));
        }
        self.gpu.write(buf, &data)
    }

    /// The groups of the members that pass the same `color`, ranked by `key` (then by rank)
    /// (`ncclCommSplit`): every member calls it, and gets its member of its color's group. The
    /// new member drives the same device.
    ///
    /// # Example
    /// ```
    /// use cute_rs_host::collective::Communicator;
    /// // A 2 x 2 mesh of ranks 0..4 (row-major): the groups along mesh dimension 1 are the rows.
    /// let rows: Vec<(usize, usize)> = std::thread::scope(|s| {
    ///     let hs: Vec<_> = Communicator::cpu_group(4).into_iter()
    ///         .map(|c| s.spawn(move || { let row = c.split(c.rank() / 2, c.rank() % 2).unwrap(); (row.rank(), row.size()) }))
    ///         .collect();
    ///     hs.into_iter().map(|h| h.join().unwrap()).collect()
    /// });
    /// assert_eq!(rows, [(0, 2), (1, 2), (0, 2), (1, 2)]);
    /// ```
    ///
    /// # Errors
    /// A member's timeout.
    pub fn split(&self, color: usize, key: usize) -> Result<Communicator> {
        let all = self.exchange("split", (color, key))?;
        let mut members: Vec<(usize, usize)> = all.iter().enumerate().filter(|(_, ck)| ck.0 == color).map(|(r, ck)| (ck.1, r)).collect();
        members.sort();
        let rank = members.iter().position(|&(_, r)| r == self.rank).expect("this member is in its color");
        let split = {
            let mut n = self.splits.lock().map_err(|_| poisoned("split"))?;
            *n += 1;
            *n
        };
        let group = self.group.children.lock().map_err(|_| poisoned("split"))?.entry((split, color)).or_insert_with(|| Group::new(members.len())).clone();
        Ok(Communicator { rank, gpu: self.gpu.clone(), group, splits: Mutex::new(0) })
    }
}

/// Element `i` of the members' parts, added in rank order.
fn sum_over<T: Summable>(parts: &[Arc<Vec<T>>], i: usize) -> T {
    parts[1..].iter().fold(parts[0][i], |acc, p| acc.sum(p[i]))
}

/// Waits on `cv` until notified or `deadline`; `None` past it.
fn wait<'a, S>(cv: &Condvar, guard: std::sync::MutexGuard<'a, S>, deadline: Instant) -> Option<std::sync::MutexGuard<'a, S>> {
    let left = deadline.checked_duration_since(Instant::now())?;
    cv.wait_timeout(guard, left).ok().map(|(g, _)| g)
}
