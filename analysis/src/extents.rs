//! The finding a buffer that runs past its memory makes
//! ([`fib_wire::Up::Overflow`], FIB039): the rank's facts (the bytes the
//! call covers, the memory's size, the allocation's return address) with
//! the site table's (the buffer argument as written, the variable's name,
//! type and declaration).

use fib_report::codes::{BufferOverflow, Rule};
use fib_report::{Finding, Place};
use fib_wire::{Memory, Overflow, Site};

use crate::sites::{FileNames, Resolver};

/// The finding of rank `rank`'s call `call` at `site` whose buffer runs
/// past its memory as `fault` says, in the interleaving `replay`.
pub fn finding(
    sites: &Resolver,
    files: &FileNames,
    rank: usize,
    site: Site,
    call: &str,
    fault: &Overflow,
    replay: String,
) -> Finding {
    let place = sites.place(site, call, files);
    let table = sites.call_site(site, call, files);
    let name = table
        .as_ref()
        .filter(|s| !s.callee.is_empty())
        .map_or(call.to_string(), |s| s.callee.clone());
    let buffer = table
        .as_ref()
        .and_then(|s| s.args.get(fault.arg as usize).cloned());
    let (memory, made) = match &fault.memory {
        Memory::Variable => {
            let bound = table.as_ref().and_then(|s| {
                s.bounds
                    .iter()
                    .find(|b| b.arg == fault.arg as usize)
                    .cloned()
            });
            match bound {
                Some(b) => {
                    let made = b.declared.as_ref().map(|(file, line)| {
                        (
                            Place {
                                file: Some(sites.show(file)),
                                line: Some(*line),
                                column: None,
                                span: None,
                            },
                            format!("`{}` is declared here", b.variable),
                        )
                    });
                    (format!("`{}` ({})", b.variable, b.type_name), made)
                }
                None => ("its variable".to_string(), None),
            }
        }
        Memory::Heap { allocator, site } => {
            let at = sites.place(*site, allocator, files);
            let made = at
                .file
                .is_some()
                .then(|| (at, format!("the block is allocated here ({allocator})")));
            (format!("the block {allocator} returned"), made)
        }
    };
    BufferOverflow {
        rank,
        call: name,
        buffer,
        writes: fault.writes,
        count: fault.count,
        ranks: fault.ranks,
        block: fault.block,
        datatype: fault.datatype.clone(),
        extent: fault.extent,
        start: fault.offset + fault.start,
        end: fault.offset + fault.end,
        size: fault.size,
        memory,
        made,
        place,
        replay,
    }
    .finding()
}
