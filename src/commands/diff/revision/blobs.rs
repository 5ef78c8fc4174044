//! Reading blobs with `git cat-file --batch`: only the objects asked for, each checked against
//! the size the listing gave before a byte of it is kept.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::Stdio;

use super::command::{git_command, spawn_error, stderr_text};
use super::failure::GitFailed;

/// A blob to read: its object name and the size `ls-tree -l` listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Wanted {
    pub object: String,
    pub size: u64,
}

/// Reads `wanted` from the repository at `toplevel`, in order, as stored (no filter runs).
pub(super) fn read(toplevel: &Path, wanted: &[Wanted]) -> Result<Vec<Vec<u8>>, GitFailed> {
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let mut child = git_command(toplevel)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| GitFailed::Spawn(Box::new(spawn_error(err))))?;
    let mut stdin = child.stdin.take().ok_or(GitFailed::NoPipe("input"))?;
    let names: Vec<String> = wanted.iter().map(|w| format!("{}\n", w.object)).collect();
    // Written from a thread: git answers while it reads, and both pipes have limited buffers.
    let feeder = std::thread::spawn(move || -> std::io::Result<()> {
        for name in names {
            stdin.write_all(name.as_bytes())?;
        }
        Ok(())
    });
    let stdout = child.stdout.take().ok_or(GitFailed::NoPipe("output"))?;
    let blobs = answers(&mut BufReader::new(stdout), wanted);
    if blobs.is_err() {
        // The rest of the output is not wanted; git stops on the closed pipe.
        let _ = child.kill();
    }
    let fed = feeder.join();
    let status = child.wait_with_output()?;
    let blobs = blobs?;
    match fed {
        Ok(Ok(())) if status.status.success() => Ok(blobs),
        _ => Err(GitFailed::Exited(stderr_text(&status))),
    }
}

/// The longest answer header git writes: a SHA-256 name, `blob`, a 20-digit size.
const HEADER_LIMIT: u64 = 128;

/// Parses git's answers to `wanted`: `<object> blob <size>\n<content>\n` each.
pub(super) fn answers(
    reader: &mut impl BufRead,
    wanted: &[Wanted],
) -> Result<Vec<Vec<u8>>, GitFailed> {
    let mut blobs = Vec::with_capacity(wanted.len());
    let mut header = Vec::new();
    for want in wanted {
        header.clear();
        reader
            .by_ref()
            .take(HEADER_LIMIT)
            .read_until(b'\n', &mut header)?;
        let text = String::from_utf8_lossy(&header);
        let text = text.trim_end();
        let expected = format!("{} blob {}", want.object, want.size);
        if text != expected {
            return Err(if text.ends_with(" missing") {
                GitFailed::MissingObject(want.object.clone())
            } else {
                GitFailed::UnexpectedAnswer(text.to_owned())
            });
        }
        let size = usize::try_from(want.size).map_err(|_| GitFailed::BlobTooLarge)?;
        let mut content = Vec::new();
        content
            .try_reserve_exact(size)
            .map_err(|_| GitFailed::CannotHold(size))?;
        reader.by_ref().take(want.size).read_to_end(&mut content)?;
        let mut end = [0; 1];
        reader.read_exact(&mut end)?;
        if content.len() != size || end != *b"\n" {
            return Err(GitFailed::EndedEarly(want.object.clone()));
        }
        blobs.push(content);
    }
    Ok(blobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "78981922613b2afb6025042ff6bd878ac1994e85";

    fn want(size: u64) -> Wanted {
        Wanted {
            object: A.to_owned(),
            size,
        }
    }

    #[test]
    fn answers_are_read_in_order() {
        let output = format!("{A} blob 2\na\n\n{A} blob 0\n\n");
        let blobs = answers(&mut output.as_bytes(), &[want(2), want(0)]).unwrap();
        assert_eq!(blobs, [b"a\n".to_vec(), Vec::new()]);
    }

    #[test]
    fn answers_that_differ_from_the_listing_are_errors() {
        for (output, size) in [
            (format!("{A} missing\n"), 2),
            (format!("{A} blob 3\nabc\n"), 2),
            (format!("{A} tree 2\nab\n"), 2),
            (format!("{A} blob 2\na"), 2),
            (format!("{A} blob 2\nabX"), 2),
            ("x".repeat(10_000), 2),
        ] {
            assert!(
                answers(&mut output.as_bytes(), &[want(size)]).is_err(),
                "{output:.80}"
            );
        }
    }

    #[test]
    fn a_failed_answer_says_what_went_wrong_as_before() {
        let why = |output: String| {
            answers(&mut output.as_bytes(), &[want(2)])
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            why(format!("{A} missing\n")),
            format!("object {A} is missing (a partial or shallow clone?)")
        );
        assert_eq!(
            why(format!("{A} tree 2\tx\n")),
            format!("unexpected git cat-file answer `{A} tree 2\\tx`")
        );
        assert_eq!(
            why(format!("{A} blob 2\nabX")),
            format!("git cat-file ended object {A} early")
        );
        assert!(matches!(
            answers(&mut format!("{A} blob 2\na").as_bytes(), &[want(2)]),
            Err(GitFailed::Io(_))
        ));
    }
}
