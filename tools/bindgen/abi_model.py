"""Reads include/alvorkit_interception_profiler.h with libclang (clang.cindex) into a small
model: constants, enums, structs (with clang's own sizes and offsets) and exported functions.
The model is all the generators and the strict check work from."""
import re
import clang.cindex as ci

LIBCLANG_CANDIDATES = ["/usr/lib/llvm-14/lib/libclang-14.so.1", "/usr/lib/llvm-14/lib/libclang.so.1"]


def _configure():
    import os
    for path in LIBCLANG_CANDIDATES:
        if os.path.exists(path) and not ci.Config.loaded:
            ci.Config.set_library_file(path)
            return


class Model:
    def __init__(self):
        self.constants = []   # (name, value)
        self.strings = []     # (name, text): macros that are one string literal
        self.enums = []       # (name, [(member, value)])
        self.structs = []     # (name, size, [(field, ctype, offset)])
        self.typedefs = {}    # name -> underlying type spelling
        self.functions = []   # (name, result ctype, [(param, ctype)])
        self.statuses = []    # (name, value, description) from ALVK_STATUS_LIST, in order


def _c_string(literal):
    """The text of a C string literal token (the header's descriptions use no escapes but
    \\ and \")."""
    body = literal[1:-1]
    return re.sub(r'\\(.)', r'\1', body)


def _status_list(tokens):
    """ALVK_STATUS_LIST(X) X(name, value, "description" ...) ... as (name, value, description)."""
    entries, i = [], tokens.index(")") + 1
    while i < len(tokens):
        if tokens[i] != "X" or tokens[i + 1] != "(":
            raise SystemExit(f"ALVK_STATUS_LIST: unexpected token {tokens[i]!r}")
        close = tokens.index(")", i)
        name, comma1, value, comma2, *strings = tokens[i + 2:close]
        if comma1 != "," or comma2 != "," or not strings or not all(t.startswith('"') for t in strings):
            raise SystemExit(f"ALVK_STATUS_LIST: entry {name} is not X(name, value, \"description\")")
        entries.append((name, int(value, 0), "".join(_c_string(t) for t in strings)))
        i = close + 1
    return entries


def load(header, extra_args=()):
    _configure()
    index = ci.Index.create()
    tu = index.parse(header, args=["-x", "c", "-std=c11", *extra_args],
                     options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise SystemExit("\n".join(f"{header}: {d}" for d in errors))
    model = Model()
    for c in tu.cursor.get_children():
        if c.location.file is None or c.location.file.name != header:
            continue
        if c.kind == ci.CursorKind.MACRO_DEFINITION:
            tokens = [t.spelling for t in c.get_tokens()][1:]
            if c.spelling == "ALVK_STATUS_LIST":
                model.statuses = _status_list(tokens)
            elif len(tokens) == 1 and re.fullmatch(r"0x[0-9A-Fa-f]+u?|[0-9]+u?", tokens[0]):
                model.constants.append((c.spelling, int(tokens[0].rstrip("uU"), 0)))
            elif len(tokens) == 1 and re.fullmatch(r'"[^"\\]*"', tokens[0]):
                model.strings.append((c.spelling, _c_string(tokens[0])))
        elif c.kind == ci.CursorKind.ENUM_DECL and c.spelling:
            members = [(m.spelling, m.enum_value) for m in c.get_children()
                       if m.kind == ci.CursorKind.ENUM_CONSTANT_DECL]
            if c.spelling not in [e[0] for e in model.enums]:
                model.enums.append((c.spelling, members))
        elif c.kind == ci.CursorKind.STRUCT_DECL and c.spelling and c.is_definition():
            t = c.type
            fields = [(f.spelling, f.type, t.get_offset(f.spelling) // 8)
                      for f in c.get_children() if f.kind == ci.CursorKind.FIELD_DECL]
            if c.spelling not in [s[0] for s in model.structs]:
                model.structs.append((c.spelling, t.get_size(), fields))
        elif c.kind == ci.CursorKind.TYPEDEF_DECL:
            model.typedefs[c.spelling] = c.underlying_typedef_type.spelling
        elif c.kind == ci.CursorKind.FUNCTION_DECL and c.spelling.startswith("alvk_"):
            params = [(p.spelling, p.type) for p in c.get_arguments()]
            model.functions.append((c.spelling, c.result_type, params))
    return model
