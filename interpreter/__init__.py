"""Reference execution of the IR on torch: the oracle for every differential test."""
