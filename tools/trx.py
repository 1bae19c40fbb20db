"""Reads the results of a test run written as a .trx (dotnet test --logger trx): one record
per test result. The one reader of the format for tools/test_failures.py and
tools/check_platform_run.py; Python 3 standard library only."""
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

NS = "{http://microsoft.com/schemas/VisualStudio/TeamTest/2010}"


@dataclass
class TestResult:
    class_name: str  # without its namespace
    method: str  # without its arguments
    test_name: str  # as the run displays it (xunit: Namespace.Class.Method(arguments))
    outcome: str  # Passed, Failed, NotExecuted, ...
    duration: str
    message: str
    stack: str


def read_results(path):
    """Every test result of the .trx at path (ElementTree.ParseError when it is not one)."""
    root = ET.parse(path).getroot()
    methods = {}
    for test in root.iter(NS + "UnitTest"):
        method = test.find(NS + "TestMethod")
        if method is not None:
            name = re.sub(r"\(.*$", "", method.get("name", "")).rsplit(".", 1)[-1]
            methods[test.get("id")] = (method.get("className", "").rsplit(".", 1)[-1], name)
    results = []
    for result in root.iter(NS + "UnitTestResult"):
        class_name, method = methods.get(result.get("testId"), ("", ""))
        info = result.find(f"{NS}Output/{NS}ErrorInfo")
        results.append(TestResult(class_name, method, result.get("testName", ""), result.get("outcome", ""),
                                  result.get("duration", ""),
                                  (info.findtext(NS + "Message") if info is not None else "") or "",
                                  (info.findtext(NS + "StackTrace") if info is not None else "") or ""))
    return results
