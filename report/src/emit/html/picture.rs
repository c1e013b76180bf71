//! The space-time picture of a run in the HTML report: an inline SVG with
//! one lane per rank, the rank's calls drawn left to right on it, bars that
//! join a collective's calls, arrows from each send to the receive that got
//! it, and the ordering path the picture is about; under it a caption and a
//! legend of what the picture shows. The picture's data comes from
//! [`crate::timeline`], which also places every call in its column; this
//! module only draws.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::esc;
use crate::emit::human::plural;
use crate::timeline::{At, Columns, Lane, Link, LinkKind, Mark, Role, Timeline};

// The picture's geometry, in pixels.
const LEFT: usize = 92;
const COL: usize = 112;
const LANE: usize = 68;
const TOP: usize = 8;

fn cx(col: usize) -> usize {
    LEFT + col * COL + COL / 2
}

fn cy(lane: usize) -> usize {
    TOP + lane * LANE + LANE / 2
}

/// The words under a mark for its role, and its CSS class.
fn role(r: Role) -> (&'static str, &'static str) {
    match r {
        Role::Plain => ("", "plain"),
        Role::Blocked => ("blocked", "blocked"),
        Role::Waiting => ("waiting", "waiting"),
        Role::WitnessRecv => ("wildcard receive", "w-recv"),
        Role::WitnessBarrier => ("the barrier", "w-barrier"),
        Role::WitnessSend => ("rival send", "w-send"),
        Role::OnPath => ("on the path", "on-path"),
        Role::RaceAccess => ("racing access", "race"),
        Role::Completes => ("completes it", "completes"),
    }
}

/// The space-time picture of `t` with its legend and caption. `id` makes
/// the ids of the picture's arrowheads unique in the page; `token`, when
/// given, names the interleaving in the caption.
pub(super) fn timeline_figure(out: &mut String, id: &str, t: &Timeline, token: Option<&str>) {
    let svg = Picture::new(id, t).svg();
    let caption = caption(t, token);
    let _ = write!(
        out,
        "<figure class=\"timeline\"><div class=\"scroll\">{svg}</div><figcaption>{caption}"
    );
    let legend = legend(t);
    if !legend.is_empty() {
        out.push_str("<span class=\"legend\">");
        for (class, words) in legend {
            let _ = write!(out, "<span class=\"key {class}\"><i></i>{words}</span>");
        }
        out.push_str("</span>");
    }
    out.push_str("</figcaption></figure>\n");
}

/// A timeline being drawn: the timeline, the column of each of its marks,
/// and the prefix of its arrowheads' ids.
struct Picture<'t> {
    id: &'t str,
    t: &'t Timeline,
    cols: Columns,
}

impl<'t> Picture<'t> {
    fn new(id: &'t str, t: &'t Timeline) -> Picture<'t> {
        Picture {
            id,
            t,
            cols: t.columns(),
        }
    }

    /// The whole SVG element, drawn back to front: lanes, collectives'
    /// bars, the ordering path, the arrows, then the calls.
    fn svg(&self) -> String {
        let width = LEFT + (self.last_column() + 1) * COL + 8;
        let height = TOP * 2 + self.t.lanes.len() * LANE;
        let mut svg = String::new();
        self.open(&mut svg, width, height);
        for (l, lane) in self.t.lanes.iter().enumerate() {
            self.lane(&mut svg, l, lane, width);
        }
        self.collective_bars(&mut svg);
        self.path(&mut svg);
        for link in self
            .t
            .links
            .iter()
            .filter(|l| l.kind != LinkKind::Collective)
        {
            self.arrow(&mut svg, link);
        }
        self.marks(&mut svg);
        svg.push_str("</svg>");
        svg
    }

    /// The last column the picture uses: left-out calls after a lane's
    /// last mark take one more column.
    fn last_column(&self) -> usize {
        let mut last = 0;
        for (l, lane) in self.t.lanes.iter().enumerate() {
            if let (Some(m), Some(&c)) = (lane.marks.last(), self.cols[l].last()) {
                last = last.max(if m.index + 1 < lane.total { c + 1 } else { c });
            }
        }
        last
    }

    /// The opening `<svg>` tag and the arrowheads' markers.
    fn open(&self, svg: &mut String, width: usize, height: usize) {
        let id = self.id;
        let _ = write!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"space-time diagram, one lane per rank\">\
             <defs>"
        );
        for (name, color) in [
            ("msg", "#57606a"),
            ("wild", "#0969da"),
            ("hl", "#d97706"),
            ("rival", "#cf222e"),
        ] {
            let _ = write!(
                svg,
                "<marker id=\"{id}-{name}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" \
                 markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{color}\"/></marker>"
            );
        }
        svg.push_str("</defs>\n");
    }

    /// Lane `l`: its line, its rank label and call count, and a pill for
    /// each run of left-out calls.
    fn lane(&self, svg: &mut String, l: usize, lane: &Lane, width: usize) {
        let y = cy(l);
        let _ = writeln!(
            svg,
            "<g class=\"lane\"><line x1=\"{LEFT}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>\
             <text class=\"rank\" x=\"10\" y=\"{}\">rank {}</text>\
             <text class=\"total\" x=\"10\" y=\"{}\">{}</text></g>",
            width - 8,
            y - 2,
            lane.rank,
            y + 13,
            plural(lane.total as u64, "call"),
        );
        for (c, n) in gaps(lane, &self.cols[l]) {
            let x = cx(c);
            let _ = writeln!(
                svg,
                "<g class=\"gap\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"16\" rx=\"8\"/>\
                 <text x=\"{x}\" y=\"{}\">⋯ {n} ⋯</text><title>{} left out</title></g>",
                x - 34,
                y - 8,
                68,
                y + 4,
                plural(n as u64, "call"),
            );
        }
    }

    /// The centre of call `a`'s mark, when it is drawn.
    fn pos(&self, a: At) -> Option<(usize, usize)> {
        let (l, m) = self.t.find(a)?;
        Some((cx(self.cols[l][m]), cy(l)))
    }

    /// Collectives: a bar joining their members' marks.
    fn collective_bars(&self, svg: &mut String) {
        for link in self
            .t
            .links
            .iter()
            .filter(|l| l.kind == LinkKind::Collective)
        {
            let ends: Vec<(usize, usize)> = link.ends.iter().filter_map(|&a| self.pos(a)).collect();
            let (Some(x), Some(top), Some(bottom)) = (
                ends.iter().map(|e| e.0).max(),
                ends.iter().map(|e| e.1).min(),
                ends.iter().map(|e| e.1).max(),
            ) else {
                continue;
            };
            let class = if link.highlight { "coll hl" } else { "coll" };
            let _ = writeln!(
                svg,
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"14\" height=\"{}\" rx=\"7\"/>",
                x - 7,
                top - 12,
                bottom - top + 24
            );
        }
    }

    /// The ordering path: along the lanes and down the collectives' bars.
    fn path(&self, svg: &mut String) {
        let points: Vec<(usize, usize)> = self.t.path.iter().filter_map(|&a| self.pos(a)).collect();
        if points.len() > 1 {
            let d: Vec<String> = points.iter().map(|(x, y)| format!("{x},{y}")).collect();
            let _ = writeln!(svg, "<polyline class=\"path\" points=\"{}\"/>", d.join(" "));
        }
    }

    /// A message or probe: an arrow from the send; the rival match as a
    /// dashed curve. Nothing when either end is not drawn.
    fn arrow(&self, svg: &mut String, link: &Link) {
        let id = self.id;
        let (Some(&a), Some(&b)) = (link.ends.first(), link.ends.get(1)) else {
            return;
        };
        let (Some((x1, y1)), Some((x2, y2))) = (self.pos(a), self.pos(b)) else {
            return;
        };
        let (class, marker) = match link.kind {
            LinkKind::Rival => ("rival", "rival"),
            _ if link.highlight => ("msg hl", "hl"),
            LinkKind::Message { wildcard: true } => ("msg wild", "wild"),
            LinkKind::Probe => ("msg probe", "msg"),
            _ => ("msg", "msg"),
        };
        let (x1, y1, x2, y2) = (x1 as f64, y1 as f64, x2 as f64, y2 as f64);
        // Stop short of the receiving mark.
        let (dx, dy) = (x2 - x1, y2 - y1);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ex, ey) = (x2 - dx / len * 10.0, y2 - dy / len * 10.0);
        if link.kind == LinkKind::Rival || y1 == y2 {
            // A curve bowing away from the straight line, so that it does
            // not hide the messages that did happen.
            let bow = if y1 == y2 {
                28.0
            } else {
                0.35 * len.min(160.0)
            };
            let (nx, ny) = (-dy / len, dx / len);
            let (qx, qy) = ((x1 + x2) / 2.0 + nx * bow, (y1 + y2) / 2.0 + ny * bow);
            let title = if link.kind == LinkKind::Rival {
                "<title>the send could match this receive without the barrier</title>"
            } else {
                ""
            };
            let _ = writeln!(
                svg,
                "<path class=\"{class}\" d=\"M{x1:.1},{y1:.1} Q{qx:.1},{qy:.1} {ex:.1},{ey:.1}\" marker-end=\"url(#{id}-{marker})\">{title}</path>"
            );
        } else {
            let _ = writeln!(
                svg,
                "<line class=\"{class}\" x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{ex:.1}\" y2=\"{ey:.1}\" marker-end=\"url(#{id}-{marker})\"/>"
            );
        }
    }

    /// The calls, lane by lane; a collective's calls as squares.
    fn marks(&self, svg: &mut String) {
        let collective: HashSet<At> = self
            .t
            .links
            .iter()
            .filter(|l| l.kind == LinkKind::Collective)
            .flat_map(|l| l.ends.iter().copied())
            .collect();
        for (l, lane) in self.t.lanes.iter().enumerate() {
            for (m, mark) in lane.marks.iter().enumerate() {
                let at = At {
                    rank: lane.rank,
                    index: mark.index,
                };
                let xy = (cx(self.cols[l][m]), cy(l));
                draw_mark(svg, lane.rank, mark, xy, collective.contains(&at));
            }
        }
    }
}

/// The runs of left-out calls of `lane`, whose marks are in columns
/// `cols`: the column each run's pill takes, and how many calls it stands
/// for.
fn gaps(lane: &Lane, cols: &[usize]) -> Vec<(usize, usize)> {
    let mut gaps: Vec<(usize, usize)> = Vec::new();
    let mut prev: Option<usize> = None;
    for (m, mark) in lane.marks.iter().enumerate() {
        let skipped = match prev {
            None => mark.index,
            Some(p) => mark.index.saturating_sub(p + 1),
        };
        if skipped > 0 {
            gaps.push((cols[m].saturating_sub(1), skipped));
        }
        prev = Some(mark.index);
    }
    if let (Some(p), Some(&c)) = (prev, cols.last()) {
        if p + 1 < lane.total {
            gaps.push((c + 1, lane.total - p - 1));
        }
    }
    gaps
}

/// One call of rank `rank`, centred at `(x, y)`: its tooltip, its shape
/// and its words; `collective` says whether it is a collective's call.
fn draw_mark(svg: &mut String, rank: usize, mark: &Mark, (x, y): (usize, usize), collective: bool) {
    let (words, class) = role(mark.role);
    let place = match (&mark.file, mark.line) {
        (Some(f), Some(n)) => format!(" at {f}:{n}"),
        _ => String::new(),
    };
    let peer = mark
        .peer
        .as_deref()
        .map(|p| format!(" {p}"))
        .unwrap_or_default();
    let _ = write!(
        svg,
        "<g class=\"mark {class}\"><title>rank {}, {} {}: {}{}{}{}</title>",
        rank,
        if mark.touch { "before call" } else { "call" },
        mark.index + 1,
        esc(&mark.call),
        esc(&peer),
        esc(&place),
        if words.is_empty() {
            String::new()
        } else {
            format!(" ({words})")
        },
    );
    if mark.touch {
        // A load or store, no call: a diamond.
        if mark.role != Role::Plain {
            let _ = write!(
                svg,
                "<circle class=\"halo\" cx=\"{x}\" cy=\"{y}\" r=\"12\"/>"
            );
        }
        let _ = write!(
            svg,
            "<path class=\"dot\" d=\"M{x} {} L{} {y} L{x} {} L{} {y} Z\"/>",
            y - 7,
            x + 7,
            y + 7,
            x - 7
        );
    } else {
        mark_shape(svg, mark.role, (x, y), collective);
    }
    mark_words(svg, mark, (x, y), words);
    svg.push_str("</g>\n");
}

/// The shape of a call in role `role` centred at `(x, y)`: the dotted line
/// of a rank blocked in it, its halo when its role is not plain, and its
/// dot (a square for a collective's call).
fn mark_shape(svg: &mut String, role: Role, (x, y): (usize, usize), collective: bool) {
    if role == Role::Blocked {
        // The rank waits here for ever.
        let _ = write!(
            svg,
            "<line class=\"stuck\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
            x + 12,
            x + COL / 2 + 8
        );
    }
    if role != Role::Plain {
        let _ = write!(
            svg,
            "<circle class=\"halo\" cx=\"{x}\" cy=\"{y}\" r=\"12\"/>"
        );
    }
    if collective {
        let _ = write!(
            svg,
            "<rect class=\"dot\" x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" rx=\"2\"/>",
            x - 6,
            y - 6
        );
    } else {
        let _ = write!(
            svg,
            "<circle class=\"dot\" cx=\"{x}\" cy=\"{y}\" r=\"6.5\"/>"
        );
    }
}

/// The words around a call's dot at `(x, y)`: its name with the peer's
/// direction above it, its line and the `words` of its role below.
fn mark_words(svg: &mut String, mark: &Mark, (x, y): (usize, usize), words: &str) {
    let arrow = match mark.peer.as_deref() {
        Some(p) if p.starts_with("to ") => format!(" →{}", &p[3..]),
        Some(p) if p.starts_with("from ") => format!(" ←{}", &p[5..]),
        _ => String::new(),
    };
    let _ = write!(
        svg,
        "<text class=\"call\" x=\"{x}\" y=\"{}\">{}{}</text>",
        y - 15,
        esc(&mark.call),
        esc(&arrow),
    );
    if let Some(n) = mark.line {
        let _ = write!(
            svg,
            "<text class=\"line\" x=\"{x}\" y=\"{}\">line {n}</text>",
            y + 21
        );
    }
    if !words.is_empty() {
        let _ = write!(
            svg,
            "<text class=\"role\" x=\"{x}\" y=\"{}\">{words}</text>",
            y + 32
        );
    }
}

/// The caption under the picture: the interleaving `token` when given, how
/// to read the picture, and how many calls of the run it leaves out.
fn caption(t: &Timeline, token: Option<&str>) -> String {
    let mut caption = String::new();
    if let Some(token) = token {
        let _ = write!(caption, "Interleaving <code>{}</code>: ", esc(token));
    }
    let _ = write!(
        caption,
        "one lane per rank, each rank's calls from left to right; arrows go from a send to the receive that got it, bars join a collective's calls."
    );
    let omitted = t.omitted();
    if omitted > 0 {
        let _ = write!(
            caption,
            " {} of the run left out (at most {} per rank drawn, around the calls at issue).",
            plural(omitted as u64, "call"),
            t.lanes.iter().map(|l| l.marks.len()).max().unwrap_or(0),
        );
    }
    caption
}

/// The legend's keys, as (CSS class, words): the roles of the marks drawn,
/// then the kinds of link drawn.
fn legend(t: &Timeline) -> Vec<(&'static str, &'static str)> {
    let mut legend: Vec<(&str, &str)> = Vec::new();
    let mut roles: Vec<Role> = t
        .lanes
        .iter()
        .flat_map(|l| l.marks.iter().map(|m| m.role))
        .collect();
    roles.dedup();
    for r in [
        Role::Blocked,
        Role::Waiting,
        Role::WitnessRecv,
        Role::WitnessBarrier,
        Role::WitnessSend,
        Role::OnPath,
        Role::RaceAccess,
        Role::Completes,
    ] {
        if roles.contains(&r) {
            let (words, class) = role(r);
            legend.push((class, words));
        }
    }
    let kinds = |k: fn(&LinkKind) -> bool| t.links.iter().any(|l| k(&l.kind));
    if kinds(|k| matches!(k, LinkKind::Message { wildcard: false })) {
        legend.push(("k-msg", "message"));
    }
    if kinds(|k| matches!(k, LinkKind::Message { wildcard: true })) {
        legend.push(("k-wild", "message to a wildcard receive"));
    }
    if t.path.len() > 1
        || t.links
            .iter()
            .any(|l| l.highlight && l.kind != LinkKind::Rival)
    {
        legend.push(("k-hl", "ordering path"));
    }
    if kinds(|k| matches!(k, LinkKind::Rival)) {
        legend.push((
            "k-rival",
            "match the barrier prevents: the rival send could reach the wildcard receive",
        ));
    }
    legend
}
