"""Writes the bad-input cases of testdata/bad/ (NAME.pto + NAME.err).

usage: python3 tests/make_bad_inputs.py testdata/bad

Each case is a malformed (or, for the truncations, cut-off) program and the
substring its error message must contain; tests/bad_inputs.sh checks them.
Inputs the reference accepts do not belong here.
"""
import os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)

BASE = '''import pypto.language as pl

N = pl.dynamic("N")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.tile.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> pl.Tensor[[N, 64], pl.FP32]:
        for i in pl.range(0, N, 16):
            out = self.k(x, out)
        return out
'''

H = '''import pypto.language as pl

@pl.program
class P:
'''
M = '''    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
'''
K2 = '''    @pl.function(type=pl.FunctionType.InCore)
    def k(x: pl.Tensor[[64], pl.FP32]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        return x, x
'''

def body(*lines, ret='        return x\n'):
    return H + M + ''.join('        ' + l + '\n' for l in lines) + ret

cases = {}
def case(name, text, err, at=None, args=None):
    """at: 'LINE:COL' the error must point at (checked when given);
    args: ptoopt arguments before the file (written to NAME.args)"""
    assert name not in cases, name
    cases[name] = (text if isinstance(text, bytes) else text.encode(), err + ('\n' + at if at else ''), args)

def trunc(marker, after=True, extra=''):
    i = BASE.index(marker)
    if after:
        i += len(marker)
    return BASE[:i] + extra

# ---- truncations of a valid program at statement boundaries
case('trunc_after_import', trunc('import pypto.language as pl\n'), '@pl.program')
case('trunc_after_dynamic', trunc('N = pl.dynamic("N")\n'), '@pl.program')
case('trunc_after_program_decorator', trunc('@pl.program\n'), 'class')
case('trunc_after_class_line', trunc('class P:\n'), 'indented')
case('trunc_after_function_decorator', trunc('    @pl.function(type=pl.FunctionType.InCore)\n'), 'def')
case('trunc_mid_signature', trunc('out: pl.Out[pl.Tensor[[N, 64]'), 'end of file')
case('trunc_after_signature', trunc('-> pl.Tensor[[N, 64], pl.FP32]:\n'), 'indented')
case('trunc_before_colon', trunc('-> pl.Tensor[[N, 64], pl.FP32]'), "':'")
case('trunc_mid_call', trunc('pl.tile.load(x, [0, 0],'), 'end of file')
case('trunc_after_assign_eq', trunc('        out = '), 'expected an expression')
case('trunc_after_dot', trunc('        out = pl.'), 'name')
case('trunc_after_for_header', trunc('        for i in pl.range(0, N, 16):\n'), 'indented')
case('trunc_for_without_colon', trunc('        for i in pl.range(0, N, 16)'), "':'")
case('trunc_mid_for_target', trunc('        for i'), "'in'")
case('trunc_after_second_decorator', trunc('    @pl.function(type=pl.FunctionType.Orchestration)\n'), 'def')

# ---- indentation
case('unindent_mismatch', body('y: pl.Tensor[[64], pl.FP32] = x', ret='      return y\n'), 'unindent does not match any outer indentation level')
case('unexpected_indent', body('y: pl.Tensor[[64], pl.FP32] = x', '    z: pl.Tensor[[64], pl.FP32] = y'), 'unexpected indent')
case('missing_block_after_if', body('if n > 0:', ret='        return x\n'), 'indented block')
case('class_body_not_indented', 'import pypto.language as pl\n\n@pl.program\nclass P:\n@pl.function\ndef f(self):\n    pass\n', 'indented')
case('function_body_not_indented', H + '    @pl.function\n    def f(self):\n    pass\n', 'indented')
case('tab_after_spaces_same_level', body('y: pl.Tensor[[64], pl.FP32] = x', ret='\treturn y\n'), 'inconsistent use of tabs and spaces')
case('tab_spaces_ambiguous_block', H + M + '        if n > 0:\n  \ty: pl.Tensor[[64], pl.FP32] = x\n                z: pl.Tensor[[64], pl.FP32] = x\n        return x\n', 'inconsistent use of tabs and spaces')

# ---- bytes
case('nul_byte', body('y: pl.Tensor[[64], pl.FP32] = x\0') , 'NUL byte')
case('nul_byte_in_comment', body('# a \0 comment'), 'NUL byte')
case('nul_byte_in_string', body('"""a\0b"""'), 'NUL byte')
case('nul_byte_at_line_start', H + M + '\0       return x\n', 'NUL byte')
case('nul_byte_first', '\0' + BASE, 'NUL byte')
case('invalid_utf8_code', body('y = x \xff'.encode('latin-1').decode('latin-1')).encode('latin-1'), 'invalid UTF-8')
case('invalid_utf8_comment', (H + M).encode() + b'        # stray continuation \x80 byte\n        return x\n', 'invalid UTF-8')
case('invalid_utf8_string', (H + M).encode() + b'        """truncated \xe2\x82"""\n        return x\n', 'invalid UTF-8')
case('invalid_utf8_overlong', (H + M).encode() + b'        # overlong \xc0\xaf slash\n        return x\n', 'invalid UTF-8')
case('invalid_utf8_surrogate', (H + M).encode() + b'        """surrogate \xed\xa0\x80"""\n        return x\n', 'invalid UTF-8')
case('invalid_utf8_at_line_start', (H + M).encode() + b'\xff       return x\n', 'invalid UTF-8')
case('latin1_file', b'# caf\xe9\n' + BASE.encode(), 'invalid UTF-8')
case('unexpected_char_dollar', body('y = x $ 1'), "unexpected character '$'")
case('unexpected_char_backtick', body('y = `x`'), 'unexpected character')
case('unexpected_char_question', body('y = x ? 1'), "unexpected character '?'")
case('control_char', body('y = x\x07'), 'unexpected character')
case('unterminated_string', body('y = "abc'), 'unterminated string')
case('unterminated_triple_string', H + M + '        """never closed\n        return x\n', 'unterminated string')
case('eof_inside_brackets', H + M + '        y = pl.tensor.adds(x,\n', 'end of file')
case('bad_number_suffix', body('y: pl.Scalar[pl.INDEX] = 12abc'), 'invalid number literal')

# ---- numbers
case('int_2_pow_70', body('y: pl.Scalar[pl.INDEX] = 1180591620717411303424'), 'too large')
case('int_2_pow_64', body('y: pl.Scalar[pl.INDEX] = 18446744073709551616'), 'too large')
case('int64_max_plus_1', body('y: pl.Scalar[pl.INDEX] = 9223372036854775808'), 'too large')
case('int_2_pow_70_in_shape', H + '    @pl.function\n    def f(self, x: pl.Tensor[[1180591620717411303424], pl.FP32]):\n        pass\n', 'too large')
case('float_out_of_range', body('y: pl.Scalar[pl.FP32] = 1e400'), 'out of range')
case('leading_zero_int', body('y: pl.Scalar[pl.INDEX] = 007'), 'leading zeros')
case('hex_without_digits', body('y: pl.Scalar[pl.INDEX] = 0x'), 'invalid')
case('int_trailing_underscore', body('y: pl.Scalar[pl.INDEX] = 1_'), 'invalid')
case('int_double_underscore', body('y: pl.Scalar[pl.INDEX] = 1__0'), 'invalid')
case('tuple_index_too_large', H + K2 + M + '        t: pl.Tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]] = self.k(x)\n        y: pl.Tensor[[64], pl.FP32] = t[5]\n        return y\n', 'out of range')
case('index_2_pow_70', body('y = n[1180591620717411303424]'), 'too large')

# ---- types and enums
case('unknown_type', body('y: pl.Foo[[64], pl.FP32] = x'), "pl.Foo")
case('bare_dtype_annotation', body('y: pl.INT64 = 1'), 'pl.INT64')
case('unknown_dtype', body('y: pl.Scalar[pl.FP33] = 1.0'), 'data type')
case('unknown_mem_space_in_type', body('y: pl.Tile[[64], pl.FP32, pl.Mem.Nope] = x'), 'pl.Mem.Nope')
case('unknown_enum_in_op_kwarg', body('t: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Nope)'), 'pl.Mem.Nope')
case('unknown_dtype_in_op_kwarg', body('t: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP33, layout=pl.TensorLayout.ND)'), 'pl.FP33')
case('unknown_level', body('with pl.at(level=pl.Level.NOPE):', '    y: pl.Tensor[[64], pl.FP32] = x'), 'pl.Level')
case('unknown_function_type', H + '    @pl.function(type=pl.FunctionType.Kernel)\n    def f(self):\n        pass\n', 'pl.FunctionType')
case('unknown_role', H + '    @pl.function(role=pl.Role.Boss)\n    def f(self):\n        pass\n', 'pl.Role')
case('unknown_split_mode', body('with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.DIAGONAL)]):', '    y: pl.Tensor[[64], pl.FP32] = x'), 'pl.SplitMode')
case('unknown_scope_mode', body('with pl.scope(mode=pl.ScopeMode.LAZY):', '    y: pl.Tensor[[64], pl.FP32] = x'), 'pl.ScopeMode')
case('unknown_layout_shorthand', H + '    @pl.function\n    def f(self, x: pl.Tensor[[64], pl.FP16, pl.XY]):\n        pass\n', 'pl.XY')
case('unknown_view_field', H + '    @pl.function\n    def f(self, x: pl.Tensor[[64], pl.FP16, pl.TensorView(foo=1)]):\n        pass\n', 'foo')
case('ptr_parameter', H + '    @pl.function\n    def f(self, x: pl.Ptr):\n        pass\n', 'pl.Ptr')
case('tensor_without_dtype', H + '    @pl.function\n    def f(self, x: pl.Tensor[[64]]):\n        pass\n', "','")
case('undefined_dim_in_class', H + '    @pl.function\n    def f(self, x: pl.Tensor[[M, 64], pl.FP32]):\n        pass\n', "'M'")
case('float_annotation_int_value', body('s: pl.Scalar[pl.FP32] = 1'), "Type annotation for 's' has dtype fp32 but expression has dtype index")

# ---- decorators and structure
case('unknown_decorator_kwarg', H + '    @pl.function(typo=1)\n    def f(self):\n        pass\n', 'typo')
case('unknown_program_kwarg', 'import pypto.language as pl\n\n@pl.program(fast=True)\nclass P:\n    @pl.function\n    def f(self):\n        pass\n', 'fast')
case('not_pl_function_decorator', H + '    @staticmethod\n    def f(self):\n        pass\n', '@pl.function')
case('duplicate_function', H + '    @pl.function\n    def f(self):\n        pass\n    @pl.function\n    def f(self):\n        pass\n', "uplicate function")
case('duplicate_parameter', H + '    @pl.function\n    def f(self, x: pl.Scalar[pl.INDEX], x: pl.Scalar[pl.INDEX]):\n        pass\n', "'x'")
case('level_mismatch_incore', H + '    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP)\n    def f(x: pl.Scalar[pl.INDEX]):\n        pass\n', 'CHIP')
case('level_mismatch_aiv', H + '    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIC)\n    def f(x: pl.Scalar[pl.INDEX]):\n        pass\n', 'AIC')
case('role_mismatch_orchestration', H + '    @pl.function(type=pl.FunctionType.Orchestration, role=pl.Role.SubWorker)\n    def f(self, x: pl.Scalar[pl.INDEX]):\n        pass\n', 'SubWorker')
case('role_mismatch_group', H + '    @pl.function(type=pl.FunctionType.Group, role=pl.Role.Orchestrator)\n    def f(self, x: pl.Scalar[pl.INDEX]):\n        pass\n', 'Orchestrator')
case('ellipsis_body_ordinary', body('...', ret=''), '...')
case('self_in_host_subworker', H + '    @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)\n    def w(self, x: pl.Scalar[pl.INDEX]):\n        ...\n', "must not declare 'self'", at='6:11')
case('statement_in_class_body', H + '    x = 1\n', '@pl.function')
case('two_programs', BASE + '\n@pl.program\nclass Q:\n    @pl.function\n    def f(self):\n        pass\n', 'unexpected')
case('unsupported_import', 'import numpy as np\n' + BASE, 'import')
case('module_level_non_constant', 'import pypto.language as pl\n\nX = [1, 2]\n' + BASE[len('import pypto.language as pl\n'):], "'X'")
case('empty_file', '', '@pl.program')
case('only_comments', '# just a comment\n\n# another\n', '@pl.program')

# ---- names
case('undefined_variable', body('y = zz'), "'zz'")
case('undefined_self_callee', body('y = self.nothere(x)'), 'nothere')
case('undefined_submit_callee', body('a, a_tid = pl.submit(self.nothere, x)'), 'nothere')
case('self_callee_not_called', H + K2 + M + '        y = self.k\n        return y\n', 'called')
case('submit_without_self', H + K2 + M + '        a, b = pl.submit(k, x)\n        return x\n', 'self.')
case('reassign_different_type', body('y: pl.Tensor[[64], pl.FP32] = x', 'y = n', ret='        return y\n'), "Cannot reassign 'y' with a different type")
case('carried_loop_body_not_visible', body('for i, (a,) in pl.range(n, init_values=(x,)):', '    t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(a, 1.0)', '    r: pl.Tensor[[64], pl.FP32] = pl.yield_(t)', ret='        return t\n'), "'t'")
case('strict_ssa_redefinition', 'import pypto.language as pl\n\n@pl.program(strict_ssa=True)\nclass P:\n' + M + '        y: pl.Tensor[[64], pl.FP32] = x\n        y: pl.Tensor[[64], pl.FP32] = x\n        return y\n', 'is already defined')
case('deps_not_a_variable', body('with pl.at(level=pl.Level.CORE_GROUP, deps=[1]):', '    y: pl.Tensor[[64], pl.FP32] = x'), 'variable')

# ---- statements and expressions
case('chained_comparison', body('c: pl.Scalar[pl.BOOL] = n < 1 < 2'), 'chain')
case('power_operator', body('c: pl.Scalar[pl.INDEX] = n ** 2'), '**')
case('bitwise_and', body('c: pl.Scalar[pl.INDEX] = n & 2'), "'&'")
case('bitwise_or', body('c: pl.Scalar[pl.INDEX] = n | 2'), "'|'")
case('bitwise_xor', body('c: pl.Scalar[pl.INDEX] = n ^ 2'), "'^'")
case('conditional_expression', body('c: pl.Scalar[pl.INDEX] = n if n > 0 else 0'), 'conditional')
case('python_range', body('for i in range(4):', '    pass'), 'pl.range')
case('assert_statement', body('assert n > 0'), 'assert')
case('import_in_body', body('import os'), 'import')
case('for_missing_in', body('for i pl.range(4):', '    pass'), "'in'")
case('pipeline_without_stage', body('for i in pl.pipeline(4):', '    pass'), 'stage')
case('range_four_arguments', body('for i in pl.range(0, 8, 1, 2):', '    pass'), 'positional')
case('while_without_cond', body('for (k,) in pl.while_(init_values=(0,)):', '    k2: pl.Scalar[pl.INDEX] = k + 1', '    kr: pl.Scalar[pl.INDEX] = pl.yield_(k2)'), 'pl.cond')
case('while_with_loop_var', body('for i, (k,) in pl.while_(init_values=(0,)):', '    pl.cond(k < n)', '    kr: pl.Scalar[pl.INDEX] = pl.yield_(k)'), 'pl.while_')
case('yield_count_mismatch', body('for i, (a,) in pl.range(n, init_values=(x,)):', '    r, s = pl.yield_(a)'), 'yield')
case('init_values_count_mismatch', body('for i, (a, b) in pl.range(n, init_values=(x,)):', '    r, s = pl.yield_(a, b)'), 'init_values')
case('if_else_yield_count_mismatch', body('if n > 0:', '    a: pl.Tensor[[64], pl.FP32] = pl.yield_(x)', 'else:', '    a, b = pl.yield_(x, x)'), 'yield')
case('bare_yield_in_carried_loop', body('for i, (a,) in pl.range(n, init_values=(x,)):', '    t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(a, 1.0)', '    pl.yield_(t)'), 'assignment form', at='9:13')
case('bare_yield_in_if_of_carried_loop', body('for i, (a,) in pl.range(n, init_values=(x,)):', '    if n > 0:', '        pl.yield_(a)', '    else:', '        b: pl.Tensor[[64], pl.FP32] = pl.yield_(a)'), 'assignment form', at='9:17')
case('else_without_if', body('else:', '    pass'), "'else'")
case('elif_without_if', body('elif n > 0:', '    pass'), "'elif'")
case('positional_after_keyword', body('y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, scalar=1.0, 2)'), 'positional argument follows keyword argument')
case('repeated_keyword', body('y: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=pl.FP32, dtype=pl.FP16)'), 'repeated')
case('unpack_non_call', body('a, b = x'), 'call')
case('unpack_count_mismatch', H + K2 + M + '        a, b, c = self.k(x)\n        return a\n', 'unpack')
case('negative_index_non_tuple', body('y = n[-1]'), 'negative index')
case('expression_statement_no_effect', body('x'), 'no effect')
case('pl_const_non_literal', body('c: pl.Scalar[pl.INT32] = pl.const(n, pl.INT32)'), 'pl.const')
case('pl_const_float_for_int', body('c: pl.Scalar[pl.INT32] = pl.const(1.5, pl.INT32)'), 'pl.const')
case('scalar_plus_tensor', body('c = n + x'), 'ScalarType')
case('int_times_float', body('c = n * 1.5'), 'pl.cast')
case('bool_arithmetic', body('c = True + 1'), 'BOOL')
case('as_on_cluster', body('with pl.cluster() as t:', '    y: pl.Tensor[[64], pl.FP32] = x'), 'task id')
case('role_on_core_group_scope', body('with pl.at(level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker):', '    y: pl.Tensor[[64], pl.FP32] = x'), 'role')
case('spmd_for_two_targets', body('for a, b in pl.spmd(4):', '    pass'), 'one loop variable')
case('spmd_for_with_deps', body('y: pl.Tensor[[64], pl.FP32] = x', 'for b in pl.spmd(4, deps=[y]):', '    pass'), "does not accept 'deps='", at='8:18')
case('split_aiv_without_mode', body('for v in pl.split_aiv(2):', '    pass'), 'pl.split_aiv() requires mode=')
case('split_aiv_nested', body('for v in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):', '    for w in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):', '        pass'), "nested 'for ... in pl.split_aiv(...)' is not allowed", at='8:13')
case('break_in_split_aiv', body('for v in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):', '    break'), "'break' not supported inside a 'for ... in pl.split_aiv(...)' body", at='8:13')
case('continue_in_if_of_split_aiv', body('for v in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):', '    if n > 0:', '        continue'), "'continue' not supported inside", at='9:17')
case('break_outside_loop', body('if n > 0:', '    break'), "'break' outside loop", at='8:13')
case('unknown_scope', body('with pl.foo():', '    pass'), 'pl.foo')
case('with_not_pl', body('with open(x):', '    pass'), 'scope')
case('unknown_loop_iterator', body('for i in pl.foreach(4):', '    pass'), 'foreach')
case('unknown_scope_kwarg', body('with pl.at(level=pl.Level.CORE_GROUP, speed=3):', '    pass'), 'speed')
case('unknown_for_kwarg', body('for i in pl.range(4, chunk=2):', '    pass'), 'chunk')


# ---- truncations of a second valid program (a conformance input: nested
# loops and if/else) at every line end, and at every token boundary inside
# the brackets of its signature and of a call.  Only the cuts that leave an
# invalid program are cases; the expected message follows from where the cut
# is: after a block header the block is missing, after a decorator the def,
# inside brackets the file ends before they close.
PROG2 = """import pypto.language as pl


@pl.program
class Before:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        result: pl.Tensor[[64], pl.FP32] = x
        for i in pl.range(3):
            for j in pl.range(2):
                if j == 0:
                    result = pl.add(result, 1.0)
                else:
                    result = pl.mul(result, 1.5)
        return result
"""
_lines = PROG2.splitlines(keepends=True)
for k in range(1, len(_lines)):
    last = _lines[k - 1].strip()
    text = ''.join(_lines[:k])
    if last.endswith(':'):
        want = 'indented'
    elif last.startswith('@pl.function'):
        want = 'def'
    elif last == '@pl.program':
        want = 'class'
    elif last.startswith('import'):
        want = '@pl.program'
    else:
        continue  # a complete statement: the prefix may well be valid
    case('trunc2_line%02d' % k, text, want)
import re as _re
def _token_cuts(line_no, name):
    """cut PROG2 after every token of line line_no (1-based) that is inside brackets"""
    start = sum(len(l) for l in _lines[:line_no - 1])
    line = _lines[line_no - 1]
    depth = 0
    n = 0
    for m in _re.finditer(r'[A-Za-z_][A-Za-z0-9_]*|\d+\.\d+|\d+|->|==|\S', line):
        tok = m.group()
        if tok in '([{':
            depth += 1
        elif tok in ')]}':
            depth -= 1
        if depth > 0:
            n += 1
            case('trunc2_%s_%02d' % (name, n), PROG2[:start + m.end()], 'end of file', )
_token_cuts(7, 'sig')
_token_cuts(12, 'call')

# ---- indentation
case('module_statement_indented', '  import pypto.language as pl\n' + BASE[len('import pypto.language as pl\n'):], 'found an indented block', '1:3')
case('decorator_deeper_than_def', H + '      @pl.function\n    def f(self):\n        pass\n', 'unindent does not match', '6:5')
case('else_at_unknown_level', body('if n > 0:', '    pass', '  else:', '    pass'), 'unindent does not match', '9:11')
case('statement_after_return_deeper', body('y: pl.Tensor[[64], pl.FP32] = x', ret='        return y\n            z = y\n'), 'unexpected indent', '9:13')
case('function_body_dedented_below_def', H + '    @pl.function\n    def f(self, n: pl.Scalar[pl.INDEX]):\n        if n > 0:\n            pass\n      pass\n', 'unindent does not match', '9:7')
case('def_less_indented_than_decorator', H + '        @pl.function\n    def f(self):\n        pass\n', 'unindent does not match', '6:5')

# ---- tabs (Python's TabError: levels that compare differently with
# 8-column and with 1-column tabs)
case('tab_block_after_spaces', H + M + '        if n > 0:\n\t    pass\n        return x\n', 'inconsistent use of tabs and spaces', '8:6')
case('tab_dedent_other_spelling', H.replace('    ', '\t') + '\t@pl.function\n\tdef main(self, n: pl.Scalar[pl.INDEX]):\n\t\tif n > 0:\n\t\t\tpass\n        pass\n', 'inconsistent use of tabs and spaces', '9:9')
case('tab_space_tab_deeper', H + M + '        if n > 0:\n \t\tpass\n        return x\n', 'inconsistent use of tabs and spaces', '8:4')
case('tab_in_function_of_space_class', H + '\t@pl.function\n\tdef f(self):\n\t\tpass\n        @pl.function\n        def g(self):\n                pass\n', 'inconsistent use of tabs and spaces', '8:9')

# ---- CRLF and lone CR line ends (accepted): the error still lands on the
# right line and column
def crlf(t):
    return t.replace('\n', '\r\n')
case('crlf_undefined_name', crlf(body('y = zz')), "'zz'", '7:13')
case('crlf_unindent_mismatch', crlf(body('if n > 0:', '    pass', ret='      return x\n')), 'unindent does not match', '9:7')
case('crlf_nul_byte', crlf(body('y: pl.Tensor[[64], pl.FP32] = x')).replace('= x', '= \0x'), 'NUL byte', '7:39')
case('cr_only_undefined_name', body('y = zz').replace('\n', '\r'), "'zz'", '7:13')
case('crlf_unterminated_string', crlf(body('y = "abc')), 'unterminated string', '7:13')
case('mixed_line_ends_bad_char', body('y: pl.Tensor[[64], pl.FP32] = x', 'z = y $ 1').replace('\n', '\r\n', 3), "unexpected character '$'", '8:15')

# ---- NUL bytes
case('nul_in_identifier', body('y: pl.Tensor[[64], pl.FP32] = x\0y'), 'NUL byte', '7:40')
case('nul_at_end_of_file', (BASE + '\0').encode(), 'NUL byte', '18:1')
case('nul_in_number', body('y: pl.Scalar[pl.INDEX] = 12\0' + '34'), 'NUL byte', '7:36')
case('nul_inside_brackets', body('y = pl.tensor.adds(x,\0 1.0)'), 'NUL byte', '7:30')

# ---- invalid UTF-8
case('invalid_utf8_truncated_at_eof', BASE.encode() + b'# end \xf0\x9f\x98', 'invalid UTF-8', '18:7')
case('invalid_utf8_five_byte_lead', (H + M).encode() + b'        # \xf8\x88\x80\x80\x80\n        return x\n', 'invalid UTF-8 byte 0xF8', '7:11')
case('invalid_utf8_above_max_code_point', (H + M).encode() + b'        """\xf4\x90\x80\x80"""\n        return x\n', 'invalid UTF-8 byte 0xF4', '7:12')
case('invalid_utf8_lone_continuation_code', (H + M).encode() + b'        y = x\x80\n        return x\n', 'invalid UTF-8 byte 0x80', '7:14')
case('invalid_utf8_in_decorator_line', (H).encode() + b'    @pl.function \xc3\n    def f(self):\n        pass\n', 'invalid UTF-8 byte 0xC3', '5:18')

# ---- huge integers
case('int_below_int64_min', body('y: pl.Scalar[pl.INDEX] = -9223372036854775809'), 'too large')
case('hex_above_uint64', body('y: pl.Scalar[pl.INDEX] = 0x1FFFFFFFFFFFFFFFF'), 'too large', '7:34')
case('huge_range_bound', body('for i in pl.range(99999999999999999999):', '    pass'), 'too large', '7:27')
case('huge_int_op_kwarg', body('t: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0], [64], [64], target_memory=pl.Mem.Vec, transpose=99999999999999999999)'), 'too large')
case('huge_int_in_tile_shape', body('t: pl.Tensor[[99999999999999999999], pl.FP32] = x'), 'too large', '7:23')
case('huge_int_in_subscript_shape', body('y = x[18446744073709551616]'), 'too large')

# ---- unknown ops, types and enums
case('unknown_tensor_op', body('y = pl.tensor.nope(x)'), 'Unknown pl.tensor operation: nope')
case('unknown_tile_op', body('y = pl.tile.nope(x)'), 'Unknown pl.tile operation: nope')
case('unknown_plain_op', body('y = pl.nope(x)'), 'not in the op registry')
case('unknown_level_in_kwarg', body('with pl.at(level=pl.Level.MOON):', '    pass'), 'Unknown Level value: MOON')
case('unknown_role_in_scope', body('with pl.at(level=pl.Level.HOST, role=pl.Role.Boss):', '    pass'), 'Unknown Role value: Boss')
case('unknown_dtype_in_cast', body('c = pl.cast(n, pl.INT7)'), 'pl.INT7')
case('unknown_dtype_in_const', body('c = pl.const(1, pl.FP33)'), 'pl.FP33')
case('unknown_mem_space_long_spelling', body('t: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0], [64], [64], target_memory=pl.MemorySpace.Nowhere)'), 'unknown enum value pl.MemorySpace.Nowhere')
case('unknown_type_constructor', body('y: pl.Tensr[[64], pl.FP32] = x'), 'pl.Tensr')
case('unknown_dtype_in_parameter', H + '    @pl.function\n    def f(self, x: pl.Tensor[[64], pl.FP31]):\n        pass\n', 'pl.FP31')

# ---- duplicate functions
case('duplicate_function_incore_first', H + '    @pl.function(type=pl.FunctionType.InCore)\n    def f(x: pl.Scalar[pl.INDEX]):\n        pass\n\n    @pl.function\n    def f(self, x: pl.Tensor[[64], pl.FP32]):\n        pass\n', 'uplicate function name "f"', '9:5')
case('duplicate_function_three_times', H + ('    @pl.function\n    def g(self):\n        pass\n' * 3), 'uplicate function name "g"', '8:5')
case('duplicate_function_far_apart', BASE + '\n    @pl.function\n    def k(self, y: pl.Scalar[pl.INDEX]):\n        pass\n', 'uplicate function name "k"')

# ---- undefined names
case('undefined_in_return', body(ret='        return zz\n'), "Undefined variable 'zz'", '7:16')
case('undefined_range_bound', body('for i in pl.range(zz):', '    pass'), "Undefined variable 'zz'", '7:27')
case('undefined_if_condition', body('if zz > 0:', '    pass'), "Undefined variable 'zz'", '7:12')
case('undefined_in_op_kwarg', body('t: pl.Tensor[[64], pl.FP32] = pl.tensor.create([64], dtype=zz)'), "Undefined variable 'zz'")
case('undefined_dim_in_signature', H + '    @pl.function\n    def f(self, x: pl.Tensor[[Q], pl.FP32]) -> pl.Tensor[[Q], pl.FP32]:\n        return x\n', "Undefined variable 'Q'", '6:31')
case('undefined_after_loop_scope', body('for i in pl.range(4):', '    pass', ret='        return i2\n'), "'i2'")
case('undefined_in_yield', body('for i, (a,) in pl.range(n, init_values=(x,)):', '    r: pl.Tensor[[64], pl.FP32] = pl.yield_(zz)'), "'zz'")
case('undefined_self_callee_in_expression', body('y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(self.missing(x), 1.0)'), 'missing')

# ---- type contradictions
case('annotation_scalar_for_tensor', body('y: pl.Scalar[pl.INDEX] = x'), "Type annotation for 'y' is Scalar but expression has type Tensor", '7:9')
case('annotation_wrong_shape', body('y: pl.Tensor[[32], pl.FP32] = x'), "Type annotation for 'y' has shape dimension 0 = 32 but expression has shape dimension 0 = 64", '7:9')
case('annotation_wrong_dtype', body('y: pl.Tensor[[64], pl.FP16] = x'), "Type annotation for 'y' has dtype fp16 but expression has dtype fp32", '7:9')
case('op_scalar_for_tensor_param', body('y: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(n, 1.0)'), "The operator tensor.adds requires first argument to be a TensorType or DistributedTensorType, but got ScalarType")
case('reassign_tensor_with_scalar', body('y: pl.Tensor[[64], pl.FP32] = x', 'y = n + 1', ret='        return y\n'), "Cannot reassign 'y' with a different type")

# ---- cyclic calls (accepted as such; these cycles are also ill-typed)
CYC = H + """    @pl.function
    def f(self, x: pl.Scalar[pl.INDEX]):
        y = self.g(x)
        return y

    @pl.function
    def g(self, x: pl.Scalar[pl.INDEX]):
        y = self.f(x)
        return y
"""
case('cyclic_calls_untyped', CYC, 'self.g returns no value', '7:9')
case('self_recursion_untyped', H + '    @pl.function\n    def f(self, x: pl.Scalar[pl.INDEX]):\n        y = self.f(x)\n        return y\n', 'self.f returns no value', '7:9')
case('cyclic_calls_type_contradiction', H + """    @pl.function
    def f(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        y: pl.Tensor[[64], pl.FP32] = self.g(x)
        return x

    @pl.function
    def g(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        y: pl.Scalar[pl.INDEX] = self.f(x)
        return y
""", "Type annotation for 'y' is Tensor but expression has type Scalar", '7:9')

# Known-open bugs: written to testdata/bad-pending/ (beside OUT), whose
# README says what is wrong; move a name out of this set once it is fixed.
# ---- subscript-store sugar (dst[a:b] = src)
case('subscript_store_element_write', body('x[0] = x'), 'Element-write')
case('subscript_store_shape_mismatch', body('y: pl.Tensor[[8], pl.FP32] = pl.tensor.slice(x, [8], [0])', 'x[0:4] = y'), 'shape mismatch')
case('subscript_store_scalar_target', body('n[0:1] = x'), 'Tensor, Tile or Array')
case('subscript_store_scalar_source', body('x[0:8] = n'), 'source must also be a tensor')
case('subscript_store_too_many_indices', body('x[0:8, 0:1] = x'), 'more indices')
case('split_with_split_aiv_region', body('with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):',
     '    for v in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):', '        y: pl.Tensor[[64], pl.FP32] = x'), 'mutually exclusive')

# ---- the deferred-wait waiter contract (outline-incore; src/passes/deferred_wait.c)
WAITER = '''import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, flags: pld.DistributedTensor[[8, 1], pl.INT32], seq: pl.Tensor[[8], pl.INT32], n: pl.Scalar[pl.INDEX]):
'''
OUTLINE = '--passes=convert-to-ssa,outline-incore'
def waiter(*lines):
    return WAITER + ''.join('        ' + l + '\n' for l in lines)
def wait(off='k', exp='1'):
    return 'pld.system.defer_wait(flags, offsets=[%s, 0], expected=%s, cmp=pld.WaitCmp.Ge)' % (off, exp)
AT = 'with pl.at(level=pl.Level.CORE_GROUP):'
case('defer_wait_allow_early_resolve',
     waiter('with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True):',
            '    for k in pl.range(8):', '        ' + wait(exp='2')),
     'allow_early_resolve=True', '8:9', OUTLINE)
case('defer_wait_dynamic_trip_count',
     waiter(AT, '    for k in pl.range(0, n, 2):', '        ' + wait()),
     'statically known positive trip count', '9:13', OUTLINE)
case('defer_wait_descending_range_runs_zero_times',
     waiter(AT, '    for k in pl.range(4, 0):', '        ' + wait()),
     'statically known positive trip count', '9:13', OUTLINE)
case('defer_wait_65_conditions_over_two_loops',  # 40 + 5 * 5
     waiter(AT, '    for k in pl.range(40):', '        ' + wait('0', 'k'),
            '    for j in pl.range(5):', '        for k in pl.range(5):', '            ' + wait('j', 'k')),
     'at most 64 conditions', '8:9', OUTLINE)
case('defer_wait_65_conditions_conditional_and_unrolled',  # at most 1 for each k of 7..0, + 57
     waiter(AT, '    for k in pl.range(7, -1, -1):', '        if k != n:', '            ' + wait(),
            '    for j in pl.unroll(57):', '        ' + wait('j')),
     'at most 64 conditions', '8:9', OUTLINE)
case('defer_wait_tensor_read_after_registration',
     waiter(AT, '    ' + wait('0'), '    want = pl.read(seq, [1])', '    ' + wait('1', 'want')),
     'cannot execute tensor reads', '10:13', OUTLINE)
case('defer_wait_payload_tensor_assignment',
     waiter(AT, '    ' + wait('0'), '    copy = pl.tensor.adds(seq, 1)'),
     'cannot create or update payload tensors', '10:13', OUTLINE)
case('defer_wait_loop_reads_tensor_on_other_iterations',
     waiter(AT, '    for k in pl.range(3):', '        if k > 0:', '            ' + wait(),
            '        else:', '            want = pl.read(seq, [k])'),
     'loop may execute tensor reads', '9:13', OUTLINE)
case('defer_wait_other_call_in_bookkeeping',
     waiter(AT, '    m = pl.tensor.dim(seq, 0)', '    ' + wait('m')),
     "supports only a pre-registration tensor.read call (a scalar read of a tensor before the first "
     "pld.system.defer_wait); 'tensor.dim'", '9:13', OUTLINE)
case('defer_wait_tensor_read_inside_offsets',
     waiter(AT, '    ' + wait('pl.read(seq, [0])')),
     "supports only a pre-registration tensor.read call as (part of) an assignment's value", '9:13', OUTLINE)
case('defer_wait_under_cluster_scope',
     waiter('with pl.cluster():', '    ' + AT, '        ' + wait('0')),
     'defer_wait must be in a task-level', '9:13', OUTLINE)
case('defer_wait_directly_in_spmd_scope',
     waiter('with pl.spmd(2):', '    ' + wait('0')),
     'so every block would run identical work', '8:9', '--passes=convert-to-ssa,outline-incore,outline-cluster')
case('defer_wait_followed_by_other_op',
     waiter(AT, '    ' + wait('0'), '    pl.system.cacheinvalid()'),
     "the operation 'system.cacheinvalid' is not allowed", '10:13', OUTLINE)
case('defer_wait_in_while_loop',
     waiter(AT, '    k = 0', '    while k < 4:', '        ' + wait(), '        k = k + 1'),
     'loops must be sequential pl.range or pl.unroll loops', '10:13', OUTLINE)
case('defer_wait_in_parallel_loop',
     waiter(AT, '    for k in pl.parallel(4):', '        ' + wait()),
     'loops must be sequential pl.range or pl.unroll loops', '9:13', OUTLINE)
case('defer_wait_result_assigned',
     waiter(AT, '    r: pl.Scalar[pl.INT32] = ' + wait('0')),
     'has no result: call it as a statement of its own', '9:13', OUTLINE)
case('defer_wait_break_in_waiter',
     waiter(AT, '    for k in pl.range(4):', '        ' + wait(), '        if k == n:', '            break'),
     'may hold only scalar assignments, if / for control flow', '12:21', OUTLINE)

PENDING = set()
pending_dir = os.path.join(os.path.dirname(os.path.abspath(out)), 'bad-pending')

for name, (text, err, args) in cases.items():
    d = pending_dir if name in PENDING else out
    for old in (out, pending_dir):
        for ext in ('.pto', '.err', '.args'):
            if (old != d or (ext == '.args' and not args)) and os.path.exists(os.path.join(old, name + ext)):
                os.remove(os.path.join(old, name + ext))
    with open(os.path.join(d, name + '.pto'), 'wb') as f:
        f.write(text)
    with open(os.path.join(d, name + '.err'), 'w') as f:
        f.write(err + '\n')
    if args:
        with open(os.path.join(d, name + '.args'), 'w') as f:
            f.write(args + '\n')
print(len(cases) - len(PENDING), 'in', out, '+', len(PENDING), 'pending')
