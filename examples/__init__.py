"""Example model zoo: seeded PyTorch reproductions of public architectures.

See :mod:`xnnc.examples.models` for the models and ``MODELS`` for their factories.
"""
