# The suite imports the module the CMake build made (ctest sets PYTHONPATH to
# build/<preset>/python); run by hand: PYTHONPATH=build/release/python python3 -m pytest tests/python
