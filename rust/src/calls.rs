//! Calls: into the crate's own functions and closures (followed with arguments bound), into
//! library items (acting on their rows), methods, statics and once-cells, and the child a fork
//! starts.

use std::rc::Rc;
use std::sync::Arc;

use gpulint_core::analysis::{Analysis, ProcessEnd};
use gpulint_core::effect::{
    ChildStart, CudaInitSite, CudaObject, DeviceIndex, Effect, Init, StartMethod,
};
use gpulint_core::source::Span;

use crate::index;
use crate::interp::{Exit, Interp, MAX_DEPTH, R};
use crate::libraries::{self, Behaviour, Method};
use crate::value::Value;

/// Integer types: a parameter of one may be a device number.
const INTEGER_TYPES: &[&str] = &[
    "usize", "isize", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "c_int",
];

/// Parameter names that say the caller chooses a device.
const DEVICE_PARAMETERS: &[&str] = &[
    "ordinal",
    "device",
    "device_id",
    "device_index",
    "device_ordinal",
    "dev",
    "dev_id",
    "gpu",
    "gpu_id",
    "gpu_index",
    "idx",
    "index",
];

impl<'a, A: Analysis> Interp<'a, A> {
    /// Calls function `id`; `entry`: its parameters are what unknown callers pass.
    pub fn call_fn(
        &mut self,
        id: usize,
        args: Vec<Value<'a>>,
        receiver: Option<Value<'a>>,
        entry: bool,
    ) -> R<'a> {
        if self.stack.contains(&id) || self.stack.len() >= MAX_DEPTH || self.fuel == 0 {
            return Ok(Value::Unknown);
        }
        let index = self.index;
        let def = &index.fns[id];
        let saved = (
            self.file,
            self.scope,
            self.self_ty.take(),
            self.function,
            std::mem::take(&mut self.st.vars),
            std::mem::take(&mut self.returns),
            self.initialising.take(),
        );
        self.file = def.file;
        self.scope = def.scope;
        self.self_ty = def.self_ty.as_deref().map(Arc::from);
        self.function = Some(self.span(&def.sig.ident));
        self.stack.push(id);
        let mut args = args.into_iter();
        let mut device_param = None;
        for input in &def.sig.inputs {
            match input {
                syn::FnArg::Receiver(_) => {
                    let this = receiver.clone().unwrap_or_else(|| {
                        Value::Struct(self.self_ty.clone(), Rc::new(Vec::new()))
                    });
                    self.st.vars.push(("self".into(), this));
                }
                syn::FnArg::Typed(t) => {
                    let integer = is_integer(&t.ty);
                    let span = self.span(&t.pat);
                    if integer && is_device_name(&t.pat) {
                        device_param = Some(span);
                    }
                    let passed = args.next();
                    let value = match passed {
                        Some(v) if !entry => v,
                        _ if integer => Value::Param(span),
                        _ => Value::Unknown,
                    };
                    self.bind(&t.pat, value);
                }
            }
        }
        let result = self.block(def.body);
        let mut ends: Vec<_> = std::mem::take(&mut self.returns);
        match result {
            Ok(v) | Err(Exit::Return(v)) => ends.push((self.st.clone(), v)),
            Err(Exit::Break) => ends.push((self.st.clone(), Value::Unknown)),
            Err(Exit::Stop) => {}
        }
        // The callee's locals joined here are dropped below, when the caller's come back.
        let returned = match ends.into_iter().reduce(|(mut s, v), (s2, v2)| {
            s.join(s2);
            (s, v.join(v2))
        }) {
            Some((state, v)) => {
                self.st = state;
                Ok(v)
            }
            None => Err(Exit::Stop),
        };
        if let Ok(v) = &returned {
            self.cached_device_returned(v, device_param);
        }
        self.stack.pop();
        let (file, scope, self_ty, function, vars, returns, initialising) = saved;
        self.file = file;
        self.scope = scope;
        self.self_ty = self_ty;
        self.function = function;
        self.st.vars = vars;
        self.returns = returns;
        self.initialising = initialising;
        returned
    }

    /// A function that takes a device number and returns a once-initialised global's CUDA object.
    fn cached_device_returned(&mut self, v: &Value<'a>, device_param: Option<Span>) {
        let Some((object, ordinal)) = v.find_cuda() else {
            return;
        };
        let Some(global) = object.global.clone() else {
            return;
        };
        // The object's device came from a parameter of some function, or this one names a device.
        let Some(ordinal) = device_param.or(ordinal) else {
            return;
        };
        if let Some(function) = self.function {
            self.emit(Effect::CachedDeviceReturned {
                span: function,
                global,
                ordinal,
            });
        }
    }

    /// Calls a closure or function value with `args`.
    pub fn call_value(&mut self, callee: &Value<'a>, args: Vec<Value<'a>>) -> R<'a> {
        match callee {
            Value::Fn(id) => self.call_fn(*id, args, None, false),
            Value::Closure(c, file, scope) => {
                if self.stack.len() >= MAX_DEPTH {
                    return Ok(Value::Unknown);
                }
                let saved = (self.file, self.scope);
                (self.file, self.scope) = (*file, *scope);
                let mark = self.st.vars.len();
                let mut args = args.into_iter();
                for p in &c.inputs {
                    let v = args.next().unwrap_or(Value::Unknown);
                    self.bind(p, v);
                }
                self.stack.push(usize::MAX);
                let r = match self.expr(&c.body) {
                    Err(Exit::Return(v)) => Ok(v),
                    Err(Exit::Break) => Ok(Value::Unknown),
                    other => other,
                };
                self.stack.pop();
                self.st.vars.truncate(mark.min(self.st.vars.len()));
                (self.file, self.scope) = saved;
                r
            }
            _ => Ok(Value::Unknown),
        }
    }

    pub fn call(&mut self, call: &'a syn::ExprCall) -> R<'a> {
        let callee = self.expr(&call.func)?;
        let mut args = Vec::new();
        for a in &call.args {
            args.push(self.expr(a)?);
        }
        let span = index::call_span(
            self.file,
            &call.func,
            call.paren_token.span.close(),
            &call.attrs,
        );
        match callee {
            Value::Fn(id) => {
                let receiver = args.first().cloned();
                let is_method = self.index.fns[id]
                    .sig
                    .inputs
                    .first()
                    .is_some_and(|a| matches!(a, syn::FnArg::Receiver(_)));
                // `Type::method(x, ...)` passes the receiver first.
                if is_method {
                    let rest = args.into_iter().skip(1).collect();
                    self.call_fn(id, rest, receiver, false)
                } else {
                    self.call_fn(id, args, None, false)
                }
            }
            Value::Closure(..) => self.call_value(&callee, args),
            Value::Item(path) => {
                let arg_exprs: Vec<&'a syn::Expr> = call.args.iter().collect();
                self.library_call(&path, args, &arg_exprs, span)
            }
            _ => {
                self.run_closures(&args)?;
                Ok(Value::Unknown)
            }
        }
    }

    /// Runs the closures handed to code gpulint cannot see (`iter.map(|x| ...)`), in this process.
    fn run_closures(&mut self, args: &[Value<'a>]) -> Result<(), Exit<'a>> {
        for a in args {
            if matches!(a, Value::Closure(..)) {
                self.branches(1, |s, _| s.call_value(a, Vec::new()))
                    .or_else(|e| match e {
                        Exit::Stop => Ok(Value::Unknown),
                        e => Err(e),
                    })?;
            }
        }
        Ok(())
    }

    fn library_call(
        &mut self,
        path: &str,
        args: Vec<Value<'a>>,
        arg_exprs: &[&'a syn::Expr],
        span: Span,
    ) -> R<'a> {
        let short = short_name(path);
        let Some(row) = libraries::lookup(path) else {
            return self.unknown_call(path, &short, args, span);
        };
        let arg =
            |i: Option<usize>| i.and_then(|i| Some((args.get(i)?.clone(), *arg_exprs.get(i)?)));
        Ok(match row.behaviour {
            Behaviour::InitsCuda {
                level,
                object,
                ordinal,
                safe_in_child,
            } => {
                let (index, from) = self.ordinal(arg(ordinal), &args);
                let what = match level {
                    Init::Context => format!("`{short}` creates a CUDA context"),
                    _ => format!("`{short}` initialises the CUDA driver"),
                };
                self.init_cuda(level, span, what.clone(), !safe_in_child);
                if object {
                    self.new_object(span, index, from, what)
                } else {
                    Value::Unknown
                }
            }
            Behaviour::CudaDevice { ordinal } => {
                let (index, ordinal) = self.ordinal(arg(ordinal), &args);
                Value::Device { index, ordinal }
            }
            Behaviour::CudaDeviceIfAvailable { ordinal } => {
                let (index, from) = self.ordinal(arg(ordinal), &args);
                let what = format!("`{short}` asks the CUDA driver whether a GPU is there");
                self.init_cuda(Init::Driver, span, what, false);
                Value::Device {
                    index,
                    ordinal: from,
                }
            }
            Behaviour::Forks => Value::Pid(span),
            Behaviour::ReadsEnv => match args.first() {
                Some(Value::Str(key)) => match libraries::env_row(key) {
                    Some(row) => Value::Rank { global: row.global },
                    None => Value::Unknown,
                },
                _ => Value::Unknown,
            },
            Behaviour::RunsClosure => {
                // A thread's own thread-local values stay with it.
                let kept = self.thread_locals();
                self.run_closures(&args)?;
                self.restore_thread_locals(kept);
                Value::Unknown
            }
            Behaviour::LazyCell => {
                Value::Lazy(Rc::new(args.into_iter().next().unwrap_or(Value::Unknown)))
            }
            Behaviour::OnceCell => match self.initialising {
                Some(id) => Value::Cell(id),
                None => Value::Unknown,
            },
            Behaviour::EndsProcess => return Err(self.end_process()),
            Behaviour::Wraps => args.into_iter().next().unwrap_or(Value::Unknown),
            Behaviour::ForkChild
            | Behaviour::ForkParent
            | Behaviour::StartsProgram
            | Behaviour::LazyStaticMacro
            | Behaviour::ThreadLocalMacro
            | Behaviour::Alias(_) => Value::Unknown,
        })
    }

    /// A call with no row: into a GPU crate with a CUDA object, it runs on the GPU; with a CUDA
    /// device value, it places something there (creating the context).
    fn unknown_call(&mut self, path: &str, short: &str, args: Vec<Value<'a>>, span: Span) -> R<'a> {
        if libraries::in_gpu_crate(path) {
            let uses = format!("`{short}` runs on the GPU");
            let allocates = format!("`{short}` allocates on a CUDA device");
            if let Some(value) = self.on_gpu_of(&args, span, uses, allocates) {
                return Ok(value);
            }
        }
        self.run_closures(&args)?;
        Ok(Value::Unknown)
    }

    pub fn method_call(&mut self, m: &'a syn::ExprMethodCall) -> R<'a> {
        let receiver = self.expr(&m.receiver)?;
        let mut args = Vec::new();
        for a in &m.args {
            args.push(self.expr(a)?);
        }
        let name = m.method.to_string();
        let span = index::call_span(self.file, &m.receiver, m.paren_token.span.close(), &m.attrs);
        let index = self.index;
        // A method of the crate, by the receiver's type, or the only method of that name.
        let by_type = match &receiver {
            Value::Struct(Some(ty), _) => index.fn_by_path(&format!("{ty}::{name}")),
            _ => None,
        };
        let row = libraries::method_row(&name, |c| index.uses_crate(c));
        let only = match index.methods_named(&name) {
            [one] if row.is_none() && receiver.cuda().is_none() => Some(*one),
            _ => None,
        };
        if let Some(id) = by_type.or(only) {
            return self.call_fn(id, args, Some(receiver), false);
        }
        match row.map(|r| r.method) {
            Some(Method::PassesThrough) => return Ok(receiver),
            Some(Method::MapsWith) => {
                return match args.first() {
                    Some(f @ (Value::Closure(..) | Value::Fn(_))) => {
                        let f = f.clone();
                        self.call_value(&f, vec![receiver])
                    }
                    _ => Ok(Value::Unknown),
                }
            }
            Some(Method::InitsOnce) => {
                if let Value::Cell(id) = receiver {
                    return self.once_init(id, args.first().cloned().unwrap_or(Value::Unknown));
                }
            }
            Some(Method::SetsOnce) => {
                if let Value::Cell(id) = receiver {
                    if !self.st.cells.contains_key(&id) {
                        let v =
                            self.tag_static(id, args.into_iter().next().unwrap_or(Value::Unknown));
                        self.st.cells.insert(id, v);
                    }
                    return Ok(Value::Unknown);
                }
            }
            Some(Method::GetsOnce) => {
                if let Value::Cell(id) = receiver {
                    return Ok(self.st.cells.get(&id).cloned().unwrap_or(Value::Unknown));
                }
            }
            Some(Method::ReturnsHost) => {
                if let Some(object) = receiver.cuda().cloned() {
                    self.use_object(
                        object,
                        None,
                        span,
                        format!("`.{name}()` reads from the GPU"),
                    );
                }
                return Ok(Value::Unknown);
            }
            Some(Method::MovesToCuda { ordinal }) => {
                let arg = ordinal.and_then(|i| Some((args.get(i)?.clone(), m.args.iter().nth(i)?)));
                let (index, from) = match arg {
                    Some(_) => self.ordinal(arg, &args),
                    None => (DeviceIndex::Current, None),
                };
                let what = format!("`.{name}()` moves it to a CUDA device");
                self.init_cuda(Init::Context, span, what.clone(), true);
                return Ok(self.new_object(span, index, from, what));
            }
            Some(Method::MovesToDevice) => {
                let uses = format!("`.{name}()` copies to the GPU");
                let allocates = format!("`.{name}()` moves it to a CUDA device");
                if let Some(value) = self.on_gpu_of(&args, span, uses, allocates) {
                    return Ok(value);
                }
            }
            None => {}
        }
        if let Some(object) = receiver.cuda().cloned() {
            let ordinal = receiver.find_cuda().and_then(|(_, o)| o);
            return Ok(self.use_object(
                object,
                ordinal,
                span,
                format!("`.{name}()` runs on the GPU"),
            ));
        }
        self.run_closures(&args)?;
        Ok(Value::Unknown)
    }

    /// Reports a use of a CUDA object; returns what the use computes (on the same device).
    /// A call handed a CUDA object uses it (`uses`); one handed a device allocates there
    /// (`allocates`, creating the context); `None` when it is handed neither.
    fn on_gpu_of(
        &mut self,
        args: &[Value<'a>],
        span: Span,
        uses: String,
        allocates: String,
    ) -> Option<Value<'a>> {
        if let Some((object, ordinal)) = args.iter().find_map(Value::find_cuda) {
            let object = object.clone();
            return Some(self.use_object(object, ordinal, span, uses));
        }
        let (index, ordinal) = args.iter().find_map(Value::find_device)?;
        self.init_cuda(Init::Context, span, allocates.clone(), true);
        Some(self.new_object(span, index, ordinal, allocates))
    }

    fn use_object(
        &mut self,
        object: CudaObject,
        ordinal: Option<Span>,
        span: Span,
        what: String,
    ) -> Value<'a> {
        self.emit(Effect::CudaUsed {
            object: object.clone(),
            span,
            what: what.into(),
            through_global: object.global.is_some(),
        });
        Value::Cuda {
            object: object.derived(),
            ordinal,
        }
    }

    fn new_object(
        &mut self,
        span: Span,
        index: DeviceIndex,
        ordinal: Option<Span>,
        what: String,
    ) -> Value<'a> {
        let object = CudaObject {
            site: span,
            index,
            pinned: !matches!(index, DeviceIndex::PerWorker),
            process: self.st.process,
            global: None,
            by_handle: false,
        };
        self.emit(Effect::CudaObjectCreated {
            object: object.clone(),
            what: what.into(),
        });
        Value::Cuda { object, ordinal }
    }

    fn init_cuda(&mut self, level: Init, span: Span, what: String, fails_in_child: bool) {
        let site = CudaInitSite {
            span,
            level,
            what: what.into(),
        };
        if self.st.init.is_none() {
            self.st.init = Some(site.clone());
        }
        self.emit(Effect::CudaInit {
            site,
            fails_in_child,
        });
    }

    /// The device an ordinal argument names, and the parameter it came from. A global rank used
    /// as one is reported where it is passed.
    fn ordinal(
        &mut self,
        arg: Option<(Value<'a>, &'a syn::Expr)>,
        args: &[Value<'a>],
    ) -> (DeviceIndex, Option<Span>) {
        let Some((value, expr)) = arg else {
            // No ordinal argument: a device value among the arguments, else device 0.
            return args
                .iter()
                .find_map(Value::find_device)
                .unwrap_or((DeviceIndex::Fixed(0), None));
        };
        match value {
            Value::Int(i) => (DeviceIndex::Fixed(i), None),
            Value::Param(p) => (DeviceIndex::PerWorker, Some(p)),
            Value::Rank { global } => {
                if global {
                    let span = self.span(expr);
                    self.emit(Effect::DeviceFromGlobalRank { span, local: None });
                }
                (DeviceIndex::PerWorker, None)
            }
            Value::Device { index, ordinal } => (index, ordinal),
            _ => (DeviceIndex::PerWorker, None),
        }
    }

    /// Reads a static: a lazy one runs its initialiser the first time in each process.
    pub fn read_static(&mut self, id: usize, _at: Span) -> Value<'a> {
        if let Some(v) = self.st.statics.get(&id) {
            return v.clone();
        }
        let index = self.index;
        let def = &index.statics[id];
        let saved = (self.file, self.scope, self.initialising.replace(id));
        (self.file, self.scope) = (def.file, def.scope);
        let value = self.expr(def.expr()).unwrap_or(Value::Unknown);
        let value = match value {
            Value::Lazy(init) => {
                let v = self.call_value(&init, Vec::new()).unwrap_or(Value::Unknown);
                self.tag_static(id, v)
            }
            v if def.lazy => self.tag_static(id, v),
            v => v,
        };
        (self.file, self.scope, self.initialising) = saved;
        if !def.constant {
            self.st.statics.insert(id, value.clone());
        }
        value
    }

    /// What this thread's thread-local statics hold (initialised or not).
    fn thread_locals(&self) -> Vec<(usize, Option<Value<'a>>, Option<Value<'a>>)> {
        let index = self.index;
        (0..index.statics.len())
            .filter(|id| index.statics[*id].per_thread)
            .map(|id| {
                let st = &self.st;
                (id, st.statics.get(&id).cloned(), st.cells.get(&id).cloned())
            })
            .collect()
    }

    fn restore_thread_locals(&mut self, kept: Vec<(usize, Option<Value<'a>>, Option<Value<'a>>)>) {
        for (id, value, cell) in kept {
            match value {
                Some(v) => self.st.statics.insert(id, v),
                None => self.st.statics.remove(&id),
            };
            match cell {
                Some(v) => self.st.cells.insert(id, v),
                None => self.st.cells.remove(&id),
            };
        }
    }

    /// `cell.get_or_init(f)`: the cell's value, or `f`'s, kept for every later call.
    fn once_init(&mut self, id: usize, init: Value<'a>) -> R<'a> {
        if let Some(v) = self.st.cells.get(&id) {
            return Ok(v.clone());
        }
        let v = self.call_value(&init, Vec::new())?;
        let v = self.tag_static(id, v);
        self.st.cells.insert(id, v.clone());
        Ok(v)
    }

    /// A CUDA object now held by a static: it is that global's from here on.
    fn tag_static(&mut self, id: usize, v: Value<'a>) -> Value<'a> {
        let def = &self.index.statics[id];
        let Value::Cuda {
            mut object,
            ordinal,
        } = v
        else {
            return v;
        };
        object.global = Some((Arc::from(def.name.as_str()), def.span));
        self.emit(Effect::CudaObjectCreated {
            object: object.clone(),
            what: format!("`{}` holds a CUDA object", def.name).into(),
        });
        Value::Cuda { object, ordinal }
    }

    /// Runs one side of a fork as the child: a process of its own that starts with the parent's
    /// memory and CUDA state, and ends with the branch.
    pub fn run_child(&mut self, site: Span, body: impl FnOnce(&mut Self) -> R<'a>) {
        let parent = self.st.clone();
        let parent_ended = std::mem::take(&mut self.ended);
        let parent_returns = std::mem::take(&mut self.returns);
        self.st.analyses = parent.analyses.forked();
        self.st.child = true;
        self.st.process = self.next_process;
        self.next_process += 1;
        self.emit(Effect::ChildStarted(ChildStart {
            span: site,
            launcher: &crate::libraries::FORK,
            start_method: StartMethod::Fork,
            start_method_source: None,
            parent_init: parent.init.clone(),
            code: Some("the child's branch".into()),
            at_module_scope: false,
            during_reimport: false,
            other_layer_start: None,
            default_in_entry: None,
            made_by: None,
            // No rule on Rust forks asks how many there are.
            repeated: false,
        }));
        let _ = body(self);
        let mut analyses = self.st.analyses.clone();
        for (s, _) in std::mem::take(&mut self.returns) {
            analyses.join(s.analyses);
        }
        let end = ProcessEnd {
            partial: false,
            per_worker: true,
            cuda_initialised: self.st.init.is_some(),
        };
        self.finish(analyses, end);
        self.st = parent;
        self.ended = parent_ended;
        self.returns = parent_returns;
    }
}

fn is_integer(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| INTEGER_TYPES.contains(&s.ident.to_string().as_str())),
        syn::Type::Reference(r) => is_integer(&r.elem),
        _ => false,
    }
}

fn is_device_name(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(i) => {
            let name = i.ident.to_string();
            DEVICE_PARAMETERS.contains(&name.trim_start_matches('_'))
        }
        _ => false,
    }
}

/// `CudaContext::new` for `cudarc::driver::CudaContext::new`.
fn short_name(path: &str) -> String {
    let parts: Vec<&str> = path.split("::").collect();
    parts[parts.len().saturating_sub(2)..].join("::")
}
