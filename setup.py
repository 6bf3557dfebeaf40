"""pip install . : builds the tvk library and its Python extension with CMake (offline: only
Debian's setuptools, pybind11-dev and the packages scripts/install_deps.sh lists are needed) and
installs the package `tvk` with libtvk.so beside the extension."""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def project_version():
    with open(os.path.join(HERE, "CMakeLists.txt")) as f:
        return re.search(r"project\(tvk VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    """Configures and builds the `_tvk` target, then puts it and libtvk.so in the package.
    TVK_PREBUILT=DIR packages a CMake build directory's `_tvk` and libtvk.so instead of building
    them (the test suite's quick install test: the sources were just built there)."""

    def build_extension(self, ext):
        build_dir = os.environ.get("TVK_PREBUILT")
        if build_dir:
            build_dir = os.path.abspath(build_dir)
        else:
            build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            os.makedirs(build_dir, exist_ok=True)
            subprocess.check_call(
                ["cmake", "-S", HERE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DTVK_BUILD_TESTS=OFF",
                 "-DPython3_EXECUTABLE=" + sys.executable]
            )
            jobs = os.environ.get("TVK_JOBS", str(os.cpu_count() or 1))
            subprocess.check_call(["cmake", "--build", build_dir, "--target", "_tvk", "-j", jobs])
        target = os.path.abspath(self.get_ext_fullpath(ext.name))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        built = glob.glob(os.path.join(build_dir, "python", "tvk", "_tvk*.so"))
        if len(built) != 1:
            raise RuntimeError("expected one _tvk extension in %s, found %s" % (build_dir, built))
        shutil.copyfile(built[0], target)
        shutil.copyfile(os.path.join(build_dir, "src", "libtvk.so"), os.path.join(os.path.dirname(target), "libtvk.so"))


setup(
    name="tvk",
    version=project_version(),
    description="PyTorch models on Vulkan GPUs, without libtorch at run time",
    packages=["tvk", "tvk.utils"],
    package_dir={"": "python"},
    package_data={"tvk": ["py.typed", "*.pyi"]},
    ext_modules=[Extension("tvk._tvk", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    install_requires=["numpy"],
    python_requires=">=3.9",
    zip_safe=False,
)
