#!/usr/bin/env python3
"""Write python/src/libraries/torch_ops.tsv from torch's operator metadata.

torch lists every operator in `aten/src/ATen/native/native_functions.yaml` (shipped in its wheels
as `torchgen/packaged/ATen/native/native_functions.yaml`): its signature, its variants (`torch.X`,
`Tensor.X`), its tags. This script sorts each Python-visible operator into the class that says
whether it runs on torch's intra-op thread pool on host tensors, and writes one line per name and
variant. GPU014 reads the table; the reasons for each class are in the rule's docs.

    python3 scripts/torch_ops.py PATH/native_functions.yaml --version 2.11.0 --commit SHA

Classes, decided in this order for each overload (an `.out` overload is skipped):
  blas       BLAS/LAPACK-backed (matrix products, convolutions, factorisations and solvers, also
             those of `torch.linalg`): threads at any size.
  random     tagged `nondeterministic_seeded`: CPU sampling draws from one generator, serially.
  view       returns an alias of its input (`Tensor(a)`), or tagged `inplace_view`: no data moves.
  sameview   a view that keeps the number of elements (`view`, `reshape`, `t`...).
  query      returns no tensor (`bool`, `int`, `Scalar`, `()`...): metadata, comparisons to a bool.
  setter     sets metadata in place (`resize_`, `set_`, `requires_grad_`...): no arithmetic.
  factory    takes no tensor: its own rows (`torch.zeros`...) decide.
  fill       a factory that writes every element (`torch.zeros`, `torch.full`...): TensorIterator's
             fill, split across threads above the grain size.
  pointwise  tagged `pointwise`: the output has the broadcast shape of the inputs, split across
             threads above the grain size.
  sized      any other operator on tensors (reductions, copies, indexing, sorting...): split across
             threads above the grain size of its largest input.
A name with overloads in several classes takes the one that reports least (the order below).
"""

import argparse
import re
import sys

import yaml

# Operators whose CPU kernels call BLAS or LAPACK (or oneDNN for convolutions).
BLAS = {
    "addbmm", "addmm", "addmv", "baddbmm", "bilinear", "bmm", "cdist", "chain_matmul",
    "cholesky", "cholesky_inverse", "cholesky_solve", "conv1d", "conv2d", "conv3d",
    "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "convolution",
    "det", "dot", "einsum", "geqrf", "inner", "inverse", "logdet", "lu_solve", "matmul",
    "matrix_exp", "matrix_power", "mm", "mv", "orgqr", "ormqr", "pinverse", "qr", "slogdet",
    "svd", "tensordot", "triangular_solve", "vdot",
    # `torch.linalg`'s factorisations, solvers and products (its norms are reductions).
    "linalg_cholesky", "linalg_cholesky_ex", "linalg_det", "linalg_eig", "linalg_eigh",
    "linalg_eigvals", "linalg_eigvalsh", "linalg_householder_product", "linalg_inv",
    "linalg_inv_ex", "linalg_ldl_factor", "linalg_ldl_factor_ex", "linalg_ldl_solve",
    "linalg_lstsq", "linalg_lu", "linalg_lu_factor", "linalg_lu_factor_ex", "linalg_lu_solve",
    "linalg_matmul", "linalg_matrix_exp", "linalg_matrix_power", "linalg_multi_dot",
    "linalg_pinv", "linalg_qr", "linalg_slogdet", "linalg_solve", "linalg_solve_ex",
    "linalg_solve_triangular", "linalg_svd", "linalg_svdvals", "linalg_tensorinv",
    "linalg_tensorsolve",
}
# Factories that write every element they allocate.
FILLS = {"zeros", "ones", "full", "zeros_like", "ones_like", "full_like"}
# Views whose result holds as many elements as their input.
SAME_SIZE_VIEWS = {
    "view", "view_as", "reshape", "reshape_as", "flatten", "t", "transpose", "permute",
    "squeeze", "unsqueeze", "contiguous", "detach", "swapaxes", "swapdims", "movedim",
    "moveaxis", "adjoint", "mT", "mH", "ravel",
}
# In-place operators that change metadata or storage, not values.
SETTERS = {"resize_", "resize_as_", "set_", "requires_grad_", "retain_grad", "rename_"}
# From least to most reported: a name with overloads in several classes takes the first.
ORDER = [
    "query", "setter", "factory", "random", "view", "sameview", "fill", "sized",
    "pointwise", "blas",
]
# Python namespaces of `python_module`: the prefix their names drop there.
MODULES = {None: ("", ""), "linalg": ("linalg.", "linalg_"), "special": ("special.", "special_")}


def split_signature(func):
    """`name.overload(args) -> returns` as (name, overload, args, returns)."""
    head, returns = func.split(" -> ", 1)
    name_part, args = head.split("(", 1)
    name, _, overload = name_part.partition(".")
    return name, overload, args.rsplit(")", 1)[0], returns


def classify(entry, name, overload, args, returns):
    """The class of one overload, or None when Python cannot call it as `torch.X` or `.X`."""
    if overload == "out" or overload.endswith("_out") or "Tensor(a!) out" in args:
        return None
    tags = entry.get("tags", [])
    tags = [tags] if isinstance(tags, str) else tags
    if name in SETTERS or entry.get("manual_cpp_binding"):
        return "setter"
    if "nondeterministic_seeded" in tags:
        return "random"
    if name in FILLS:
        return "fill"
    if re.search(r"Tensor\([a-z]+\)", returns) or "inplace_view" in tags:
        return "sameview" if name in SAME_SIZE_VIEWS else "view"
    if "Tensor" not in returns:
        return "query"
    if not re.search(r"\bTensor\b", args):
        return "factory"
    if "pointwise" in tags:
        return "pointwise"
    if name in BLAS:
        return "blas"
    return "sized"


def rows(entries):
    """{(python name, variant): class} for every operator Python can call."""
    table = {}
    for entry in entries:
        if "func" not in entry:
            continue
        name, overload, args, returns = split_signature(entry["func"])
        module = entry.get("python_module")
        if module not in MODULES or name.startswith("_"):
            continue
        cls = classify(entry, name, overload, args, returns)
        if cls is None:
            continue
        namespace, drop = MODULES[module]
        python_name = namespace + (name[len(drop):] if name.startswith(drop) else name)
        variants = [v.strip() for v in entry.get("variants", "function").split(",")]
        for variant in variants:
            # Methods live on the tensor whatever the namespace of the function.
            key = (python_name if variant == "function" else name, variant)
            old = table.get(key)
            if old is None or ORDER.index(cls) < ORDER.index(old):
                table[key] = cls
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("yaml", help="native_functions.yaml")
    parser.add_argument("--version", required=True, help="the torch version it ships with")
    parser.add_argument("--commit", required=True, help="the torch commit it comes from")
    parser.add_argument("--output", default="python/src/libraries/torch_ops.tsv")
    opts = parser.parse_args()
    with open(opts.yaml, encoding="utf-8") as f:
        entries = yaml.safe_load(f)
    table = rows(entries)
    aten = {split_signature(e["func"])[0] for e in entries if "func" in e}
    missing = sorted((BLAS | FILLS | SAME_SIZE_VIEWS | SETTERS) - aten)
    if missing:
        print(f"named here but not Python operators in the metadata: {missing}", file=sys.stderr)
    with open(opts.output, "w", encoding="utf-8") as out:
        out.write(f"# torch {opts.version} ({opts.commit}): aten/src/ATen/native/native_functions.yaml\n")
        out.write("# generated by scripts/torch_ops.py; do not edit. name, variant, class\n")
        for (name, variant), cls in sorted(table.items()):
            out.write(f"{name}\t{variant}\t{cls}\n")


if __name__ == "__main__":
    main()
