"""The shipped type stubs (python/kinetrack/*.pyi, promised by py.typed) against the built module:
every public name of kinetrack and its submodules is in its stub and every stub name is in the
module, and every function's keyword names are those the stub declares."""
import ast
import inspect
import pathlib
import re

import pytest

import kinetrack as kt

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "kinetrack"
MODULES = [("kinetrack", kt, "__init__.pyi"), ("fabrik", kt.fabrik, "fabrik.pyi"), ("hand", kt.hand, "hand.pyi"),
           ("prior", kt.prior, "prior.pyi"), ("experiments", kt.experiments, "experiments.pyi")]
STUB_ONLY = {"ArrayLike", "NDArray", "FrameRef"}  # type aliases of the stubs


def stub_definitions(path):
    defs = {}
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defs[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defs[node.target.id] = node
        elif isinstance(node, ast.Assign):
            defs.update({t.id: node for t in node.targets if isinstance(t, ast.Name)})
    return defs


def signature_names(doc):
    """Parameter names of the first pybind11 signature line `name(a: T, b: U = …) -> R`."""
    line = (doc or "").split("\n")[0]
    inside = line[line.find("(") + 1:line.rfind(")")]
    names = re.findall(r"(?:^|,\s*)(\*?\w+)\s*:", inside)
    return [n for n in names if n not in ("self", "*")]


@pytest.mark.parametrize("name,module,stub", MODULES, ids=[m[0] for m in MODULES])
def test_every_public_name_is_in_the_stub(name, module, stub):
    defs = stub_definitions(PACKAGE / stub)
    public = {n for n in dir(module) if not n.startswith("_") and not inspect.ismodule(getattr(module, n))}
    assert sorted(public - set(defs)) == [], f"{name}: public names missing from {stub}"
    declared = {n for n in defs if not n.startswith("_")}
    assert sorted(declared - public - STUB_ONLY) == [], f"{name}: {stub} declares names the module lacks"


@pytest.mark.parametrize("name,module,stub", MODULES, ids=[m[0] for m in MODULES])
def test_function_parameters_match_the_stub(name, module, stub):
    defs = stub_definitions(PACKAGE / stub)
    wrong = []
    for fname, node in defs.items():
        if not isinstance(node, ast.FunctionDef) or not hasattr(module, fname):
            continue
        ours = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
        theirs = signature_names(getattr(module, fname).__doc__)
        if theirs and ours != theirs:
            wrong.append(f"{fname}: stub {ours}, module {theirs}")
    assert wrong == []
