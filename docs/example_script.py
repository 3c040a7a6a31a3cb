"""Seed 004 as a script: `gradviz trace docs/example_script.py -o graph.json` runs it and
saves the tape of its last tape.gradient(...) as a document (named like its variables)."""
import gradviz as tf

t = tf.Variable([[0.8363, 0.4719, 0.9783], [0.3379, 0.6548, 0.3835], [0.7846, 0.9173, 0.2393],
                 [0.5418, 0.3875, 0.4276], [0.0948, 0.2637, 0.8039]])
b = tf.Variable([[0.43842274, -0.53439844, -0.07710262], [1.5658046, -0.1012345, -0.2744976],
                 [1.4204658, 1.2609464, -0.43640924]])
with tf.GradientTape() as tape:
    y = tf.matmul(t, b)
grad = tape.gradient(y, t)   # every row is the row sums of b
print(grad)
