"""The command lines of ``python -m corpus`` (`main`), with its accounts (`users`) and uploads (`uploads`)."""
