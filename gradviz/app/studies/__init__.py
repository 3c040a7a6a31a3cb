"""The study docks (pyqtgraph): Jacobian, batch Jacobian, Hessian, forward vs reverse,
the gradient's norm along the backward pass, the gradient check.

`VIEWS` lists (dock title, widget class); each class takes the DocumentController.
The numbers they show come from story.studies; the views only lay them out.
"""
from .batch_view import BatchJacobianView
from .chain_view import ChainCostView
from .check_view import GradientCheckView
from .heatmap import Heatmap
from .hessian_view import HessianView
from .jacobian_view import JacobianView
from .norms_view import GradientNormView

VIEWS = [
    ("Jacobian", JacobianView),
    ("Batch Jacobian", BatchJacobianView),
    ("Hessian", HessianView),
    ("Forward vs reverse", ChainCostView),
    ("Gradient norms", GradientNormView),
    ("Gradient check", GradientCheckView),
]

__all__ = ["VIEWS", "Heatmap", "JacobianView", "BatchJacobianView", "HessianView",
           "ChainCostView", "GradientNormView", "GradientCheckView"]
