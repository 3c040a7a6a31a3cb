"""The study docks (pyqtgraph): Jacobian, batch Jacobian, Hessian, forward vs reverse.

`VIEWS` lists (dock title, widget class); each class takes the DocumentController.
The numbers they show come from story.studies; the views only lay them out.
"""
from .batch_view import BatchJacobianView
from .chain_view import ChainCostView
from .heatmap import Heatmap
from .hessian_view import HessianView
from .jacobian_view import JacobianView

VIEWS = [
    ("Jacobian", JacobianView),
    ("Batch Jacobian", BatchJacobianView),
    ("Hessian", HessianView),
    ("Forward vs reverse", ChainCostView),
]

__all__ = ["VIEWS", "Heatmap", "JacobianView", "BatchJacobianView", "HessianView",
           "ChainCostView"]
