//! `calltrace man` and `calltrace completions`: the man page (roff) and
//! shell completion scripts, both generated from the clap definitions.

use super::Cli;

/// Writes the completion script of `shell` for every command and flag.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn std::io::Write) {
    use clap::CommandFactory;
    clap_complete::generate(shell, &mut Cli::command(), "calltrace", out);
}

/// Writes the man page: the command, its subcommands and their flags.
pub fn man_page(out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    // clap_mangen's own list points at calltrace-graph(1) and friends,
    // pages that do not exist: the commands are described on this page.
    commands_section(&cmd, out)?;
    man.render_extra_section(out)?;
    man.render_version_section(out)?;
    // Each command's synopsis and flags under its own heading.
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("calltrace {}", sub.get_name());
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        let man = clap_mangen::Man::new(sub.clone().bin_name(name));
        man.render_description_section(out)?;
        man.render_synopsis_section(out)?;
        man.render_options_section(out)?;
    }
    Ok(())
}

/// `COMMANDS`: each command with its one-line description, pointing at its
/// section further down this page.
fn commands_section(cmd: &clap::Command, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    writeln!(out, ".SH COMMANDS")?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let title = format!("calltrace {}", sub.get_name()).to_uppercase();
        writeln!(
            out,
            ".TP\n\\fBcalltrace {}\\fR\n{} (see {title} below)",
            sub.get_name(),
            roff_text(&about)
        )?;
    }
    Ok(())
}

/// Text safe in a roff body line: a backslash as `\e`, `-` as `\-`, and a
/// leading `.` or `'` kept from reading as a request.
fn roff_text(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    match s.starts_with(['.', '\'']) {
        true => format!("\\&{s}"),
        false => s,
    }
}
