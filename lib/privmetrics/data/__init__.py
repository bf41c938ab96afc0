"""The input side: what a table is and where it comes from.

``schema`` (column types and the key/sensitive roles), ``domain`` (the public bounds and category
lists a DP synthesiser may rely on), ``validation`` (every check that turns bad input into a clear
error) and ``datasets`` (the shipped datasets, each described by a manifest that ships with the
package under ``resources/datasets``).

May import ``threads``, ``paths`` and ``resources``; everything else in the package may import from here.
"""
