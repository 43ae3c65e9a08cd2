//! The terminal view of `calltrace live`, drawn with ratatui from a
//! [`Snapshot`]: a status line (events per second, events, dropped), the
//! top functions by self time over the last interval and overall side by
//! side, and each thread's current stack (ended threads counted in one
//! line).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph};

use super::Snapshot;
use crate::emit::format::duration;

/// What the title bar says besides the snapshot.
pub struct Title<'a> {
    /// The followed trace.
    pub trace: &'a str,
    /// `following`, `ended`, or an error.
    pub state: &'a str,
    /// Length of an interval, in seconds.
    pub interval: f64,
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, s: &Snapshot, title: &Title) {
    let [head, tops, stacks, foot] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Percentage(55),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(status(s, title)), head);
    let [now, all] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(tops);
    let what = if s.timed { "self time" } else { "calls" };
    let now_title = format!(" Top by {what}, last interval ({:.2} s) ", title.interval);
    frame.render_widget(top_list(&s.top_interval, s.timed, &now_title), now);
    frame.render_widget(
        top_list(
            &s.top_overall,
            s.timed,
            &format!(" Top by {what}, overall "),
        ),
        all,
    );
    frame.render_widget(stack_list(s, stacks.width.saturating_sub(2).into()), stacks);
    frame.render_widget(Paragraph::new("q quits"), foot);
}

fn status(s: &Snapshot, t: &Title) -> Vec<Line<'static>> {
    let first = format!(
        "calltrace live: {} ({})   events/s: {:.0}   events: {}   dropped: {}   threads: {}{}",
        t.trace,
        t.state,
        s.rate,
        s.events,
        s.dropped,
        s.stacks.len(),
        match s.ended_threads {
            0 => String::new(),
            n => format!(" (+{n} ended)"),
        }
    );
    let mut lines = vec![Line::styled(
        first,
        Style::new().add_modifier(Modifier::BOLD),
    )];
    if let Some(p) = &s.problem {
        lines.push(Line::from(format!("note: {p}")));
    } else if s.skipped > 0 {
        lines.push(Line::from(format!(
            "{} could not be read",
            crate::emit::format::counted(s.skipped as usize, "line", "lines")
        )));
    }
    lines
}

fn top_list<'a>(list: &[(String, u64, f64)], timed: bool, title: &str) -> Paragraph<'a> {
    let lines: Vec<Line> = list
        .iter()
        .map(|(name, w, share)| {
            let weight = if timed { duration(*w) } else { w.to_string() };
            Line::from(format!("{:>6.1}% {weight:>9}  {name}", share * 100.0))
        })
        .collect();
    Paragraph::new(lines).block(Block::bordered().title(title.to_string()))
}

fn stack_list<'a>(s: &Snapshot, width: usize) -> Paragraph<'a> {
    // First, so that many running threads cannot push it out of sight.
    let ended = (s.ended_threads > 0).then(|| {
        Line::styled(
            format!(
                "{} ended (not shown)",
                crate::emit::format::counted(s.ended_threads, "thread", "threads")
            ),
            Style::new().add_modifier(Modifier::DIM),
        )
    });
    let lines: Vec<Line> = ended
        .into_iter()
        .chain(s.stacks.iter().map(|(tid, stack)| {
            let label = format!("thread {tid}: ");
            let room = width.saturating_sub(label.chars().count());
            Line::from(label + &innermost(stack, room))
        }))
        .collect();
    Paragraph::new(lines).block(Block::bordered().title(" Current stacks (outermost first) "))
}

/// The stack outermost first, dropping outer frames (shown as `...`) so
/// that the innermost ones, the interesting end, fit in `room` characters.
fn innermost(stack: &[String], room: usize) -> String {
    if stack.is_empty() {
        return "(no open call)".to_string();
    }
    let full = stack.join(" > ");
    if full.chars().count() <= room {
        return full;
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut used = "... ".len();
    for frame in stack.iter().rev() {
        let cost = frame.chars().count() + " > ".len();
        if used + cost > room && !kept.is_empty() {
            break;
        }
        used += cost;
        kept.push(frame);
    }
    kept.reverse();
    format!("... > {}", kept.join(" > "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    #[test]
    fn deep_stacks_keep_their_innermost_frames() {
        let stack: Vec<String> = ["main", "parse", "expr", "term", "hot"]
            .map(String::from)
            .into();
        assert_eq!(innermost(&stack, 80), "main > parse > expr > term > hot");
        assert_eq!(innermost(&stack, 20), "... > term > hot");
        assert_eq!(innermost(&stack, 3), "... > hot");
        assert_eq!(innermost(&[], 10), "(no open call)");
    }

    #[test]
    fn shows_every_figure() {
        let s = Snapshot {
            timed: true,
            top_interval: vec![("hot".into(), 1_500_000, 0.75)],
            top_overall: vec![("hot".into(), 3_000_000, 0.6)],
            stacks: vec![(42, vec!["main".into(), "hot".into()])],
            rate: 1234.0,
            events: 99,
            dropped: 3,
            ended_threads: 487,
            ..Snapshot::default()
        };
        let mut term = Terminal::new(TestBackend::new(120, 20)).unwrap();
        let title = Title {
            trace: "t.txt",
            state: "following",
            interval: 0.25,
        };
        term.draw(|f| draw(f, &s, &title)).unwrap();
        let text: String = term
            .backend()
            .buffer()
            .content()
            .chunks(120)
            .map(|row| row.iter().map(|c| c.symbol()).collect::<String>() + "\n")
            .collect();
        for want in [
            "events/s: 1234",
            "dropped: 3",
            "75.0%   1.50 ms  hot",
            "thread 42: main > hot",
            "last interval (0.25 s)",
            "threads: 1 (+487 ended)",
            "487 threads ended (not shown)",
        ] {
            assert!(text.contains(want), "{want} not in\n{text}");
        }
    }
}
