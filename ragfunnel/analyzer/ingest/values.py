"""Attribute values stringified exactly as the collector's clickhouseexporter stores them.

The exporter (v0.165) writes every attribute as pdata ``Value.AsString()``
(go.opentelemetry.io/collector/pdata v1.71, pcommon/value.go): strings as they are, booleans
``true``/``false``, integers in decimal, doubles in the ECMAScript number format Go's JSON
encoder uses (``2``, ``0.5``, ``1e+21``, ``1e-7``; ``NaN``, ``Infinity``), bytes as standard
base64, and arrays and maps as compact JSON (``["a","b"]``, ``[0.9,0.5]``; map keys sorted,
``<``, ``>`` and ``&`` not escaped, U+2028/U+2029 escaped). A NaN or infinity *inside* an array
or map makes Go's JSON encoder fail, and AsString then yields the empty string: so do we.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec

from ragfunnel.analyzer.ingest.otlp_structs import AnyValue, KeyValue, decode_array, decode_kvlist

__all__ = ["InvalidValue", "any_value_as_string", "array_as_string", "go_float", "go_json"]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_json_encode = msgspec.json.encode
_T = TypeVar("_T")


class _String(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    stringValue: str


class _Strings(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    values: list[_String] = []


class _Double(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    doubleValue: float


class _Doubles(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    values: list[_Double] = []


_DOUBLES_HEAD = b'{"values":[{"doubleValue":'
_decode_strings = msgspec.json.Decoder(_Strings).decode
_decode_doubles = msgspec.json.Decoder(_Doubles).decode


class InvalidValue(ValueError):
    """An attribute value that a protobuf JSON parser would reject (the span is skipped)."""


class _NotJSON(Exception):
    """A NaN or infinity inside an array or map: Go's JSON encoder refuses it."""


def go_float(value: float) -> str:
    """``value`` formatted as Go's ``float64AsString`` / encoding/json (ES6 number format)."""
    if math.isnan(value):
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    text = repr(value)  # shortest round-trip digits, like Go's strconv with precision -1
    if "e" not in text:
        return text[:-2] if text.endswith(".0") else text
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text)
    magnitude = abs(value)
    if magnitude < 1e-6 or magnitude >= 1e21:
        return f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent)}"
    sign = "-" if mantissa.startswith("-") else ""
    digits = mantissa.lstrip("-").replace(".", "")
    if exponent >= 0:
        whole = digits[: exponent + 1].ljust(exponent + 1, "0")
        fraction = digits[exponent + 1 :]
    else:
        whole = "0"
        fraction = "0" * (-exponent - 1) + digits
    fraction = fraction.rstrip("0")
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"


def _json_bytes(encoded: bytes) -> str:
    # msgspec escapes strings as Go does, except U+2028/U+2029, which Go always escapes.
    if not encoded.isascii() and (b"\xe2\x80\xa8" in encoded or b"\xe2\x80\xa9" in encoded):
        encoded = encoded.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return encoded.decode()


def _double(value: float | str) -> float:
    if isinstance(value, float):
        return value
    try:
        return float(value)  # protobuf JSON also writes doubles as strings ("NaN", "1.5")
    except ValueError:
        raise InvalidValue(f"doubleValue {value!r} is not a number") from None


def _int(value: int | str) -> int:
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            raise InvalidValue(f"intValue {value!r} is not an integer") from None
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise InvalidValue(f"intValue {value} is out of the int64 range")
    return value


def _bytes(value: str) -> str:
    try:
        if "-" in value or "_" in value:
            raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        else:
            raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise InvalidValue(f"bytesValue {value[:40]!r} is not base64") from None
    return base64.b64encode(raw).decode()


def any_value_as_string(value: AnyValue | None) -> str:
    """The exporter's column text for one attribute value (pdata ``Value.AsString``).

    Raises:
        InvalidValue: the value could not have been parsed by the collector.
    """
    if value is None:
        return ""
    if value.stringValue is not None:
        return value.stringValue
    if value.intValue is not None:
        return str(_int(value.intValue))
    if value.doubleValue is not None:
        return go_float(_double(value.doubleValue))
    if value.arrayValue:
        return array_as_string(value.arrayValue)
    if value.boolValue is not None:
        return "true" if value.boolValue else "false"
    if value.kvlistValue:
        return _as_json_or_empty(_map_json, _kvlist(value.kvlistValue))
    if value.bytesValue is not None:
        return _bytes(value.bytesValue)
    return ""


def array_as_string(raw: bytes | msgspec.Raw) -> str:
    """AsString of an OTLP JSON ``arrayValue`` given as its raw JSON text.

    The id and score lists ragfunnel writes decode straight into strings or floats; any other
    array (mixed, nested, NaN) goes through the general encoder.
    """
    if memoryview(raw)[:26] == _DOUBLES_HEAD:
        try:
            return _floats_json([e.doubleValue for e in _decode_doubles(raw).values])
        except msgspec.DecodeError:
            pass
    else:
        try:
            return _json_bytes(_json_encode([e.stringValue for e in _decode_strings(raw).values]))
        except msgspec.DecodeError:
            pass
    try:
        values = decode_array(raw).values
    except msgspec.DecodeError as exc:
        raise InvalidValue(f"arrayValue: {exc}") from None
    return _as_json_or_empty(_array_json, values)


def _floats_json(numbers: list[float]) -> str:
    encoded = _json_encode(numbers)
    if b"e" not in encoded and b"null" not in encoded:
        # msgspec writes whole numbers as "2.0"; Go writes "2".
        if b".0," in encoded or encoded.endswith(b".0]"):
            encoded = encoded.replace(b".0,", b",").replace(b".0]", b"]")
        return encoded.decode()
    if any(math.isnan(n) or math.isinf(n) for n in numbers):
        return ""
    return "[" + ",".join(map(go_float, numbers)) + "]"


def _kvlist(raw: msgspec.Raw) -> list[KeyValue]:
    try:
        return decode_kvlist(raw).values
    except msgspec.DecodeError as exc:
        raise InvalidValue(f"kvlistValue: {exc}") from None


def _as_json_or_empty(encode: Callable[[_T, list[str]], None], values: _T) -> str:
    parts: list[str] = []
    try:
        encode(values, parts)
    except _NotJSON:
        return ""
    return "".join(parts)


def _array_json(values: Sequence[AnyValue], out: list[str]) -> None:
    out.append("[")
    for i, value in enumerate(values):
        if i:
            out.append(",")
        _value_json(value, out)
    out.append("]")


def _map_json(values: Sequence[KeyValue], out: list[str]) -> None:
    latest = {kv.key: kv.value for kv in values}
    out.append("{")
    for i, key in enumerate(sorted(latest)):
        if i:
            out.append(",")
        out.append(_json_bytes(_json_encode(key)))
        out.append(":")
        _value_json(latest[key], out)
    out.append("}")


def _value_json(value: AnyValue | None, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value.stringValue is not None:
        out.append(_json_bytes(_json_encode(value.stringValue)))
    elif value.intValue is not None:
        out.append(str(_int(value.intValue)))
    elif value.doubleValue is not None:
        number = _double(value.doubleValue)
        if math.isnan(number) or math.isinf(number):
            raise _NotJSON
        out.append(go_float(number))
    elif value.boolValue is not None:
        out.append("true" if value.boolValue else "false")
    elif value.arrayValue:
        try:
            _array_json(decode_array(value.arrayValue).values, out)
        except msgspec.DecodeError as exc:
            raise InvalidValue(f"arrayValue: {exc}") from None
    elif value.kvlistValue:
        _map_json(_kvlist(value.kvlistValue), out)
    elif value.bytesValue is not None:
        out.append(f'"{_bytes(value.bytesValue)}"')
    else:
        out.append("null")


def go_json(value: Any, *, escape_html: bool = False) -> str:
    """A parsed JSON value (str, int, float, bool, None, list, dict) encoded as Go does.

    ``escape_html`` adds the unicode escapes of ``<``, ``>`` and ``&`` of Go's default
    ``json.Marshal``, which older pdata versions' AsString (and so Jaeger's translator) used.
    """
    if isinstance(value, str):
        text = _json_bytes(_json_encode(value))
        if escape_html:
            text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return text
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError("NaN and infinities have no JSON form")
        return go_float(value)
    if isinstance(value, list):
        return "[" + ",".join(go_json(item, escape_html=escape_html) for item in value) + "]"
    if isinstance(value, dict):
        items = sorted(value.items())
        return (
            "{"
            + ",".join(
                f"{go_json(k, escape_html=escape_html)}:{go_json(v, escape_html=escape_html)}"
                for k, v in items
            )
            + "}"
        )
    raise TypeError(f"not a JSON value: {type(value).__name__}")
