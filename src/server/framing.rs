//! LSP's framing (`Content-Length: N` headers, a blank line, then N bytes), read with bounds.
//! `lsp-server`'s reader allocates whatever length a header announces and stops at the first bad
//! frame; this one holds at most [`MAX_MESSAGE`] bytes of a body, and skips what is not a message
//! so that the next one is still read:
//! - a length over the limit: the announced bytes are read and dropped, a buffer at a time;
//! - a missing or unreadable length, or a malformed header: the bytes up to the next
//!   `Content-Length:` are dropped (the length of what follows is unknown).
//!
//! Only the end of input inside a message loses the framing for good.

use std::io::{self, BufRead, Read};

/// The largest message body read. A document's text travels in one message: 64 MiB is eight times
/// the largest file `gpulint check` reads.
pub const MAX_MESSAGE: u64 = 64 << 20;

/// The most bytes of one header block (its lines together). Real headers are under 100 bytes.
const MAX_HEADER: usize = 16 << 10;

/// What was read.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message body, at most [`MAX_MESSAGE`] bytes.
    Body(Vec<u8>),
    /// Something that is not a message, and why; the reader goes on after it.
    Skipped(String),
    /// The input ended between messages.
    End,
}

/// The input ended inside a message: the reason.
#[derive(Debug, PartialEq, Eq)]
pub struct Lost(pub String);

pub struct Reader<R> {
    input: R,
    /// The bytes of an over-long message still to drop.
    discard: u64,
    /// After a bad header: drop bytes up to the next `Content-Length:`.
    resync: bool,
}

const NAME: &[u8] = b"content-length";

impl<R: BufRead> Reader<R> {
    pub fn new(input: R) -> Reader<R> {
        Reader {
            input,
            discard: 0,
            resync: false,
        }
    }

    pub fn next_frame(&mut self) -> Result<Frame, Lost> {
        let lost = |e: io::Error| Lost(format!("cannot read standard input: {e}"));
        if self.discard > 0 {
            let wanted = std::mem::take(&mut self.discard);
            let dropped = io::copy(&mut (&mut self.input).take(wanted), &mut io::sink());
            if dropped.map_err(lost)? < wanted {
                return Err(Lost(format!(
                    "standard input ended inside a message of {wanted} bytes"
                )));
            }
        }
        let mut first = None;
        if std::mem::take(&mut self.resync) {
            let (found, dropped) = self.skip_to_header().map_err(lost)?;
            match (found, dropped) {
                (true, _) => first = Some(b"content-length:".to_vec()),
                (false, 0) => return Ok(Frame::End),
                (false, n) => {
                    return Err(Lost(format!(
                        "standard input ended after {n} bytes that are not a message"
                    )))
                }
            }
        }
        let length = match self.header(first).map_err(lost)? {
            Header::End => return Ok(Frame::End),
            Header::Truncated => {
                return Err(Lost(
                    "standard input ended inside a message header".to_string(),
                ))
            }
            Header::Bad(reason) => {
                self.resync = true;
                return Ok(Frame::Skipped(reason));
            }
            Header::Length(n) => n,
        };
        if length > MAX_MESSAGE {
            self.discard = length;
            return Ok(Frame::Skipped(format!(
                "a message of {length} bytes, over the limit of {} MiB",
                MAX_MESSAGE >> 20
            )));
        }
        // Grows with what arrives, not with what was announced.
        let mut body = Vec::new();
        let got = (&mut self.input)
            .take(length)
            .read_to_end(&mut body)
            .map_err(lost)?;
        if (got as u64) < length {
            return Err(Lost(format!(
                "standard input ended inside a message ({got} of {length} bytes)"
            )));
        }
        Ok(Frame::Body(body))
    }

    /// Reads a header block up to its blank line; `first` is the start of its first line, already
    /// read while resynchronising.
    fn header(&mut self, first: Option<Vec<u8>>) -> io::Result<Header> {
        let resumed = first.is_some();
        let mut line = first.unwrap_or_default();
        let mut total = 0;
        let (mut length, mut bad) = (None, None);
        loop {
            let room = MAX_HEADER.saturating_sub(total + line.len());
            let (ended, read) = self.line(&mut line, room)?;
            if !ended {
                return Ok(if !resumed && total == 0 && line.is_empty() {
                    Header::End
                } else if read < room {
                    Header::Truncated
                } else {
                    Header::Bad(format!("a message header over {} KiB", MAX_HEADER >> 10))
                });
            }
            total += line.len();
            let text = trim_line_end(&line);
            if text.is_empty() {
                break;
            }
            match text.iter().position(|&b| b == b':') {
                Some(colon) if text[..colon].eq_ignore_ascii_case(NAME) => {
                    let value = trim(&text[colon + 1..]);
                    match byte_count(value) {
                        Some(n) => length = Some(n),
                        None => {
                            let reason =
                                format!("Content-Length {} is not a byte count", quoted(value));
                            bad.get_or_insert(reason);
                        }
                    }
                }
                // Other headers (`Content-Type`) say nothing the server needs.
                Some(_) => {}
                None => {
                    bad.get_or_insert_with(|| format!("a malformed header line {}", quoted(text)));
                }
            }
            line.clear();
        }
        Ok(match (bad, length) {
            (Some(reason), _) => Header::Bad(reason),
            (None, Some(n)) => Header::Length(n),
            (None, None) => Header::Bad("a message without Content-Length".to_string()),
        })
    }

    /// Appends to `line` up to and with its `\n`, reading at most `room` bytes. Whether the line
    /// ended, and how many bytes were read.
    fn line(&mut self, line: &mut Vec<u8>, room: usize) -> io::Result<(bool, usize)> {
        let mut read = 0;
        loop {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok((false, read));
            }
            let left = room - read;
            let (take, ended) = match buf.iter().take(left).position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len().min(left), false),
            };
            line.extend_from_slice(&buf[..take]);
            self.input.consume(take);
            read += take;
            if ended {
                return Ok((true, read));
            }
            if read >= room {
                return Ok((false, read));
            }
        }
    }

    /// Drops bytes up to and with the next `Content-Length:` (in any case). Whether one was found,
    /// and how many bytes were dropped before it.
    fn skip_to_header(&mut self) -> io::Result<(bool, u64)> {
        let pattern = b"content-length:";
        let (mut matched, mut dropped) = (0, 0u64);
        loop {
            let buf = match self.input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok((false, dropped + matched as u64));
            }
            for (i, &b) in buf.iter().enumerate() {
                let b = b.to_ascii_lowercase();
                // `c` occurs once in the pattern: a mismatch restarts at this byte.
                if b == pattern[matched] {
                    matched += 1;
                } else {
                    dropped += matched as u64;
                    matched = usize::from(b == pattern[0]);
                    dropped += u64::from(b != pattern[0]);
                }
                if matched == pattern.len() {
                    self.input.consume(i + 1);
                    return Ok((true, dropped));
                }
            }
            let n = buf.len();
            self.input.consume(n);
        }
    }
}

enum Header {
    Length(u64),
    Bad(String),
    /// The input ended before any byte of a header.
    End,
    /// The input ended inside a header.
    Truncated,
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn trim(value: &[u8]) -> &[u8] {
    let start = value.iter().position(|b| !matches!(b, b' ' | b'\t'));
    let end = value.iter().rposition(|b| !matches!(b, b' ' | b'\t'));
    match (start, end) {
        (Some(s), Some(e)) => &value[s..=e],
        _ => &[],
    }
}

/// Decimal digits only: no sign, no space inside, no overflow.
fn byte_count(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// A short, escaped excerpt for a message.
fn quoted(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]);
    let more = if bytes.len() > 40 { "..." } else { "" };
    format!("{text:?}{more}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Result<Frame, Lost>> {
        let mut reader = Reader::new(input);
        let mut out = Vec::new();
        loop {
            let frame = reader.next_frame();
            let last = !matches!(frame, Ok(Frame::Body(_) | Frame::Skipped(_)));
            out.push(frame);
            if last {
                return out;
            }
        }
    }

    fn body(text: &str) -> Result<Frame, Lost> {
        Ok(Frame::Body(text.as_bytes().to_vec()))
    }

    fn skipped(frame: &Result<Frame, Lost>, reason: &str) -> bool {
        matches!(frame, Ok(Frame::Skipped(r)) if r.contains(reason))
    }

    #[test]
    fn messages_are_read_in_turn_with_any_header_case_and_line_end() {
        let input = b"Content-Length: 2\r\n\r\n{}content-length:3\nContent-Type: x\n\n[1]";
        assert_eq!(frames(input), [body("{}"), body("[1]"), Ok(Frame::End)]);
    }

    #[test]
    fn an_unreadable_length_is_skipped_up_to_the_next_header() {
        for value in ["-5", "abc", "", "5x", "+5", "99999999999999999999999"] {
            let input =
                format!("Content-Length: {value}\r\n\r\nhello{{}}Content-Length: 2\r\n\r\n{{}}");
            let got = frames(input.as_bytes());
            assert!(skipped(&got[0], "is not a byte count"), "{value}: {got:?}");
            assert_eq!(got[1..], [body("{}"), Ok(Frame::End)], "{value}");
        }
        let got = frames(b"Content-Type: x\r\n\r\n{}Content-Length: 1\r\n\r\n1");
        assert!(skipped(&got[0], "without Content-Length"), "{got:?}");
        assert_eq!(got[1..], [body("1"), Ok(Frame::End)]);
        let got = frames(b"garbage\r\n\r\nCONTENT-LENGTH: 1\r\n\r\n1");
        assert!(
            skipped(&got[0], "malformed header line \"garbage\""),
            "{got:?}"
        );
        assert_eq!(got[1..], [body("1"), Ok(Frame::End)]);
    }

    #[test]
    fn a_message_over_the_limit_is_dropped_as_it_arrives() {
        let mut input = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1).into_bytes();
        input.resize(input.len() + MAX_MESSAGE as usize + 1, b' ');
        input.extend_from_slice(b"Content-Length: 2\r\n\r\n{}");
        let got = frames(&input);
        assert!(skipped(&got[0], "over the limit of 64 MiB"), "{:?}", got[0]);
        assert_eq!(got[1..], [body("{}"), Ok(Frame::End)]);
        // Announced, never sent.
        let got = frames(b"Content-Length: 1099511627776\r\n\r\n{}");
        assert!(skipped(&got[0], "1099511627776 bytes"));
        assert!(matches!(&got[1], Err(Lost(r)) if r.contains("ended inside a message")));
    }

    #[test]
    fn a_header_without_end_is_bounded_and_the_end_of_input_inside_a_message_is_lost() {
        let mut input = vec![b'x'; 1 << 20];
        input.extend_from_slice(b"\r\nContent-Length: 2\r\n\r\n{}");
        let got = frames(&input);
        assert!(skipped(&got[0], "header over 16 KiB"), "{:?}", got[0]);
        assert_eq!(got[1..], [body("{}"), Ok(Frame::End)]);
        assert!(
            matches!(&frames(b"Content-Length: 5\r\n\r\n{}")[0], Err(Lost(r)) if r.contains("2 of 5"))
        );
        assert!(
            matches!(&frames(b"Content-Length: 5\r\n")[0], Err(Lost(r)) if r.contains("header"))
        );
        assert_eq!(frames(b""), [Ok(Frame::End)]);
        let got = frames(b"Content-Length: x\r\n\r\nnot a message");
        assert!(
            matches!(&got[1], Err(Lost(r)) if r.contains("13 bytes")),
            "{got:?}"
        );
    }
}
