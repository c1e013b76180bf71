//! The finding for calls that matched but disagree on an argument
//! ([`RunEnd::ArgsDiffer`](poe::engine::RunEnd)): FIB030 for a send and its
//! receive, FIB031 for the members of a collective.

use fib_report::codes::{CollectiveArguments, Rule, TypeMismatch};
use fib_report::Finding;
use poe::engine::{Differs, Mismatch};

use crate::record::RunRecord;
use crate::sites::Resolver;

/// The finding for `m`; `collective` when its calls are one collective's.
pub(crate) fn finding(
    sites: &Resolver,
    rec: &RunRecord,
    collective: bool,
    m: &Mismatch,
    replay: String,
) -> Finding {
    let files = &rec.files;
    let call = |id: poe::OpId| {
        let o = &rec.ops[id.rank][id.index];
        (
            sites.call_name(o.site, o.name, files),
            sites.place(o.site, o.name, files),
        )
    };
    if !collective {
        let (send, recv) = (&m.values[0], &m.values[1]);
        let ((send_call, send_place), (recv_call, place)) = (call(send.0), call(recv.0));
        return TypeMismatch {
            send_rank: send.0.rank,
            send_call,
            send_type: send.1.clone(),
            send_place,
            recv_rank: recv.0.rank,
            recv_call,
            recv_type: recv.1.clone(),
            place,
            replay,
        }
        .finding();
    }
    let what = match m.differs {
        Differs::Datatype => "datatype",
        Differs::Count => "count",
        Differs::Operation => "operation",
    };
    let members: Vec<_> = m
        .values
        .iter()
        .map(|(id, v)| (id.rank, v.clone(), call(*id).1))
        .collect();
    CollectiveArguments {
        call: call(m.values[0].0).0,
        what: what.into(),
        members,
        replay,
    }
    .finding()
}
