//! What `calltrace compare` writes: the CSV tables ([`report_csv`]), the
//! SVG figures ([`plot`]), the HTML page that shows them ([`html`]) and the
//! table printed on stdout ([`table`]). `OUTPUTS` is the one list of the
//! files, in the order they are written: the writer renders from it, the
//! same-file check protects every name in it, and the page takes its
//! figures and their titles from it.

pub mod html;
pub mod plot;
pub mod report_csv;
pub mod table;

use crate::compare::Report;
use crate::error::Result;

/// One file `compare` writes into its output directory.
pub(crate) struct Output {
    /// The file's name in the output directory.
    pub name: &'static str,
    /// For a figure, its heading in `report.html`; None for the rest.
    pub figure: Option<&'static str>,
    /// How its bytes are made.
    pub render: Render,
}

/// A rendered figure: (heading, SVG bytes).
pub(crate) type Figure<'a> = (&'a str, &'a [u8]);

/// How an [`Output`] is rendered.
pub(crate) enum Render {
    /// From the report.
    Report(fn(&Report) -> Result<Vec<u8>>),
    /// From the report, only when it compares protected and unprotected
    /// runs (`--keep-features`).
    Protected(fn(&Report) -> Result<Vec<u8>>),
    /// A page showing the figures rendered before it: (heading, SVG bytes).
    Page(fn(&Report, &[Figure<'_>]) -> Vec<u8>),
}

/// Every file `compare` may write, in the order written.
pub(crate) const OUTPUTS: [Output; 9] = [
    csv_table("rates.csv", report_csv::rates),
    csv_table("sweep.csv", report_csv::sweep),
    csv_table("groups.csv", report_csv::groups),
    csv_table("features.csv", report_csv::features),
    csv_table("coverage.csv", coverage_matrix),
    Output {
        name: "sweep.svg",
        figure: Some("Nodes kept by threshold"),
        render: Render::Report(plot::sweep_svg),
    },
    Output {
        name: "rates.svg",
        figure: Some("Nodes before and after"),
        render: Render::Report(plot::rates_svg),
    },
    Output {
        name: "protection.csv",
        figure: None,
        render: Render::Protected(report_csv::protection),
    },
    Output {
        name: "report.html",
        figure: None,
        render: Render::Page(html::report_html),
    },
];

/// `coverage.csv`: every function of the instrumented objects, with its
/// calls in each pattern (`calltrace coverage --matrix`'s columns).
fn coverage_matrix(report: &Report) -> Result<Vec<u8>> {
    crate::emit::coverage::matrix(&report.coverage)
}

const fn csv_table(name: &'static str, render: fn(&Report) -> Result<Vec<u8>>) -> Output {
    Output {
        name,
        figure: None,
        render: Render::Report(render),
    }
}

/// Every output `report` calls for, rendered: (file name, bytes).
pub(crate) fn render(report: &Report) -> Result<Vec<(&'static str, Vec<u8>)>> {
    let mut files: Vec<(&Output, Vec<u8>)> = Vec::new();
    for out in &OUTPUTS {
        let bytes = match out.render {
            Render::Report(f) => f(report)?,
            Render::Protected(f) if report.unprotected.is_some() => f(report)?,
            Render::Protected(_) => continue,
            Render::Page(f) => f(report, &figures(&files)),
        };
        files.push((out, bytes));
    }
    Ok(files.into_iter().map(|(o, b)| (o.name, b)).collect())
}

/// The figures among `files`: (heading, SVG bytes).
fn figures<'a>(files: &'a [(&Output, Vec<u8>)]) -> Vec<Figure<'a>> {
    files
        .iter()
        .filter_map(|(o, b)| o.figure.map(|title| (title, b.as_slice())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_output_has_its_own_name_and_the_page_comes_last() {
        let names: Vec<_> = OUTPUTS.iter().map(|o| o.name).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        assert!(matches!(OUTPUTS.last().unwrap().render, Render::Page(_)));
        let figures = OUTPUTS.iter().filter(|o| o.figure.is_some());
        assert!(figures.clone().all(|o| o.name.ends_with(".svg")));
        assert_eq!(figures.count(), 2);
    }
}
