//! MPI handles as plain bits, and the fake request handles the library hands
//! to the program.
//!
//! MPICH's handles are `int`s and Open MPI's are pointers, so the library
//! never looks inside one: it copies a handle's bytes into a `u64` to use it
//! as a table key, and builds fake request handles from bits the same way.

use std::mem::{size_of, MaybeUninit};

/// A handle's bytes as an integer (for table keys and comparisons).
pub fn bits<T: Copy>(h: T) -> u64 {
    // SAFETY: handles are plain integers or pointers of 4 or 8 bytes, so
    // every bit pattern of their size is a valid integer of that size.
    unsafe {
        match size_of::<T>() {
            4 => std::mem::transmute_copy::<T, u32>(&h) as u64,
            8 => std::mem::transmute_copy::<T, u64>(&h),
            n => panic!("MPI handle of {n} bytes"),
        }
    }
}

/// The handle whose bytes are `b` (the inverse of [`bits`]).
pub fn from_bits<T: Copy>(b: u64) -> T {
    let mut out = MaybeUninit::<T>::zeroed();
    // SAFETY: as in `bits`; the handle is only ever compared and stored, never
    // dereferenced by anyone while it is fake.
    unsafe {
        match size_of::<T>() {
            4 => (out.as_mut_ptr() as *mut u32).write_unaligned(b as u32),
            8 => (out.as_mut_ptr() as *mut u64).write_unaligned(b),
            n => panic!("MPI handle of {n} bytes"),
        }
        out.assume_init()
    }
}

/// The bits of the fake request handle for request id `id`. The value lies
/// far from MPICH's request handles and from any pointer Open MPI hands out,
/// and is never zero.
pub fn fake_request_bits(id: u32) -> u64 {
    0x7e00_0000 | (id as u64 & 0x00ff_ffff)
}

/// Whether two handles are the same handle.
pub fn same<T: Copy>(a: T, b: T) -> bool {
    bits(a) == bits(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_through_bits() {
        let a: u32 = 0x2c00_0000;
        assert_eq!(from_bits::<u32>(bits(a)), a);
        let p = 0x1234_5678_9abc_usize as *mut u8;
        assert_eq!(from_bits::<*mut u8>(bits(p)), p);
        assert_ne!(fake_request_bits(0), 0);
        assert_ne!(fake_request_bits(1), fake_request_bits(2));
    }
}
