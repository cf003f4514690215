//! Spans of syntax nodes in a file: any node's, and a call's found along its left edge (building
//! a call's tokens to find its span made chained calls quadratic).

use gpulint_core::source::{FileId, Span};
use syn::spanned::Spanned;

pub fn to_span(file: FileId, span: proc_macro2::Span) -> Span {
    let r = span.byte_range();
    Span::new(file, r.start as u32, r.end.max(r.start) as u32)
}

pub(super) fn join(file: FileId, a: proc_macro2::Span, b: proc_macro2::Span) -> Span {
    let (a, b) = (to_span(file, a), to_span(file, b));
    Span::new(file, a.start.min(b.start), a.end.max(b.end))
}

/// The span of any syntax node in `file`. syn builds the node's tokens to find it: linear in the
/// node's size, so not for calls (see [`call_span`]).
pub fn span_of<T: Spanned>(file: FileId, node: &T) -> Span {
    to_span(file, node.span())
}

/// The span of a call or method call, from its first token to the `)` closing its arguments: the
/// same as [`span_of`] gives, found by walking the call's left edge instead of building its tokens,
/// which made `f()()()...` quadratic.
pub fn call_span(
    file: FileId,
    left: &syn::Expr,
    close: proc_macro2::Span,
    attrs: &[syn::Attribute],
) -> Span {
    let end = to_span(file, close);
    let start = match attrs.first() {
        Some(a) => a.pound_token.span,
        None => start_of(left).unwrap_or(close),
    };
    let start = to_span(file, start);
    Span::new(file, start.start.min(end.start), end.end)
}

/// Steps down an expression's left edge before giving up on finding where it starts.
const MAX_LEFT_EDGE: usize = 64;

/// The span of an expression's first token; `None` past [`MAX_LEFT_EDGE`] steps.
fn start_of(mut e: &syn::Expr) -> Option<proc_macro2::Span> {
    use syn::Expr as E;
    for _ in 0..MAX_LEFT_EDGE {
        if let Some(a) = expr_attrs(e).first() {
            return Some(a.pound_token.span);
        }
        e = match e {
            E::Call(c) => &c.func,
            E::MethodCall(m) => &m.receiver,
            E::Field(f) => &f.base,
            E::Index(i) => &i.expr,
            E::Try(t) => &t.expr,
            E::Await(a) => &a.base,
            E::Binary(b) => &b.left,
            E::Cast(c) => &c.expr,
            E::Assign(a) => &a.left,
            E::Range(syn::ExprRange {
                start: Some(start), ..
            }) => start,
            E::Path(p) => return Some(path_start(p.qself.as_ref(), &p.path)),
            E::Struct(s) => return Some(path_start(s.qself.as_ref(), &s.path)),
            E::Macro(m) => return Some(path_start(None, &m.mac.path)),
            E::Lit(l) => return Some(l.lit.span()),
            E::Paren(p) => return Some(p.paren_token.span.open()),
            E::Tuple(t) => return Some(t.paren_token.span.open()),
            E::Array(a) => return Some(a.bracket_token.span.open()),
            E::Repeat(r) => return Some(r.bracket_token.span.open()),
            E::Reference(r) => return Some(r.and_token.span),
            E::Unary(u) => return Some(u.op.span()),
            E::Block(b) => {
                return Some(match &b.label {
                    Some(l) => l.name.apostrophe,
                    None => b.block.brace_token.span.open(),
                })
            }
            E::Unsafe(u) => return Some(u.unsafe_token.span),
            E::If(i) => return Some(i.if_token.span),
            E::Match(m) => return Some(m.match_token.span),
            other => return Some(other.span()),
        };
    }
    None
}

fn path_start(qself: Option<&syn::QSelf>, path: &syn::Path) -> proc_macro2::Span {
    match (qself, &path.leading_colon, path.segments.first()) {
        (Some(q), ..) => q.lt_token.span,
        (None, Some(colon), _) => colon.spans[0],
        (None, None, Some(first)) => first.ident.span(),
        (None, None, None) => path.span(),
    }
}

/// The outer attributes of the expressions [`start_of`] looks into.
fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    use syn::Expr as E;
    match e {
        E::Call(x) => &x.attrs,
        E::MethodCall(x) => &x.attrs,
        E::Field(x) => &x.attrs,
        E::Index(x) => &x.attrs,
        E::Try(x) => &x.attrs,
        E::Await(x) => &x.attrs,
        E::Binary(x) => &x.attrs,
        E::Cast(x) => &x.attrs,
        E::Assign(x) => &x.attrs,
        E::Range(x) => &x.attrs,
        E::Path(x) => &x.attrs,
        E::Struct(x) => &x.attrs,
        E::Macro(x) => &x.attrs,
        E::Lit(x) => &x.attrs,
        E::Paren(x) => &x.attrs,
        E::Tuple(x) => &x.attrs,
        E::Array(x) => &x.attrs,
        E::Repeat(x) => &x.attrs,
        E::Reference(x) => &x.attrs,
        E::Unary(x) => &x.attrs,
        E::Block(x) => &x.attrs,
        E::Unsafe(x) => &x.attrs,
        E::If(x) => &x.attrs,
        E::Match(x) => &x.attrs,
        _ => &[],
    }
}
