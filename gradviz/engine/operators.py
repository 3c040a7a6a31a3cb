"""What a tensor does that needs the ops: Python's operators (+ - * / ** @, the
comparisons, indexing) and a Variable's recorded read.

tensor.py defines Tensor below the ops (the ops make tensors); these methods call the
ops, so they are defined here, above them, and set on the classes when the engine
package loads, as TensorFlow's math_ops overrides Tensor's operators. The ops they call
are recorded like any other.
"""
from .execute import apply, tensors
from .ops import linalg, math, shape
from .ops.math import ADD, DIV, MUL, POW, SUB
from .tensor import Tensor, Variable, _compare


# The arithmetic operators run their op as math.add etc. do, one call shorter: gradient
# rules are written with them, so under a recording tape they are the hot path.
def __add__(self, other): return apply(ADD, tensors(self, other))
def __radd__(self, other): return apply(ADD, tensors(other, self))
def __sub__(self, other): return apply(SUB, tensors(self, other))
def __rsub__(self, other): return apply(SUB, tensors(other, self))
def __mul__(self, other): return apply(MUL, tensors(self, other))
def __rmul__(self, other): return apply(MUL, tensors(other, self))
def __truediv__(self, other): return apply(DIV, tensors(self, other))
def __rtruediv__(self, other): return apply(DIV, tensors(other, self))
def __pow__(self, other): return apply(POW, tensors(self, other))
def __rpow__(self, other): return apply(POW, tensors(other, self))
def __matmul__(self, other): return linalg.matmul(self, other)
def __rmatmul__(self, other): return linalg.matmul(other, self)
def __neg__(self): return math.negative(self)
def __pos__(self): return self
def __abs__(self): return math.abs(self)
def __lt__(self, other): return math.less(self, other)
def __le__(self, other): return math.less_equal(self, other)
def __gt__(self, other): return math.greater(self, other)
def __ge__(self, other): return math.greater_equal(self, other)
def __getitem__(self, key): return shape.strided_slice(self, key)

def __eq__(self, other):
    """Elementwise, as in TF2 (`tf.reduce_all(x == y)`); False for None or for
    shapes that do not broadcast (TF's incompatible_shape_error=False)."""
    return _compare(math.equal, self, other, False)

def __ne__(self, other):
    return _compare(math.not_equal, self, other, True)


def read_value(self):
    """The current value as a tensor; recorded (as TF's ReadVariableOp), so the
    gradient with respect to the variable flows through it."""
    return shape.identity(self)


for _method in (__add__, __radd__, __sub__, __rsub__, __mul__, __rmul__, __truediv__,
                __rtruediv__, __pow__, __rpow__, __matmul__, __rmatmul__, __neg__, __pos__,
                __abs__, __lt__, __le__, __gt__, __ge__, __getitem__, __eq__, __ne__):
    setattr(Tensor, _method.__name__, _method)
Variable.read_value = Variable.value = read_value
