"""pip install ./python: the package, carrying the shared library.  The library is
$CUTEC_LIB when set (an installed libcutec.so), else built here with the repository's
Makefile (make build/libcutec.so).  ctypes only: no compiled extension, but the wheel holds
a shared library, so it is tagged for this platform."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        lib = os.environ.get("CUTEC_LIB")
        if not lib:
            root = os.path.dirname(HERE)
            subprocess.check_call(["make", "-C", root, "-j2", "build/libcutec.so"])
            lib = os.path.join(root, "build", "libcutec.so")
        shutil.copyfile(os.path.realpath(lib), os.path.join(self.build_lib, "cutec", "libcutec.so"))


class PlatformDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=PlatformDistribution)
