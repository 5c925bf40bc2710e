"""IR helpers shared by every dialect and pass: shapes, element types, constants.

Pure functions on xDSL's builtin types; nothing here imports a dialect.
"""
