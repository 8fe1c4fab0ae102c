#!/usr/bin/env node
import { createRequire as __egCreateRequire } from 'node:module'; const require = __egCreateRequire(import.meta.url);
import {
  decideConclusion
} from "./cli-chunk-LIE2LA5P.js";
import {
  CheckRunClient,
  GateOctokit,
  checkRunOutput,
  gateOctokitOptions,
  ourCheckRun,
  timingFromEnv,
  withAppendix
} from "./cli-chunk-SUJFGUPH.js";
import {
  CHECK_RUN_TEXT_MAX_BYTES,
  codeSpan,
  escapeInline,
  fencedBlock,
  parseLedgerJson,
  renderCheckRunOutput,
  trimmedNotice,
  truncateUtf8,
  utf8Bytes
} from "./cli-chunk-QIRV2OXE.js";
import {
  Octokit,
  RequestError,
  getUserAgent,
  request
} from "./cli-chunk-NXCD5NAZ.js";
import {
  isRunId,
  shownCommand
} from "./cli-chunk-65TFX77S.js";
import {
  POLICY_FILE,
  external_exports,
  require_dist
} from "./cli-chunk-NJKI2YPK.js";
import {
  createRedactor,
  redactTokenShapes
} from "./cli-chunk-Q4DFSTE5.js";
import {
  __commonJS,
  __require,
  __toESM
} from "./cli-chunk-VKCPXAXI.js";

// node_modules/pend/index.js
var require_pend = __commonJS({
  "node_modules/pend/index.js"(exports, module) {
    module.exports = Pend;
    function Pend() {
      this.pending = 0;
      this.max = Infinity;
      this.listeners = [];
      this.waiting = [];
      this.error = null;
    }
    Pend.prototype.go = function(fn) {
      if (this.pending < this.max) {
        pendGo(this, fn);
      } else {
        this.waiting.push(fn);
      }
    };
    Pend.prototype.wait = function(cb) {
      if (this.pending === 0) {
        cb(this.error);
      } else {
        this.listeners.push(cb);
      }
    };
    Pend.prototype.hold = function() {
      return pendHold(this);
    };
    function pendHold(self) {
      self.pending += 1;
      var called = false;
      return onCb;
      function onCb(err) {
        if (called) throw new Error("callback called twice");
        called = true;
        self.error = self.error || err;
        self.pending -= 1;
        if (self.waiting.length > 0 && self.pending < self.max) {
          pendGo(self, self.waiting.shift());
        } else if (self.pending === 0) {
          var listeners = self.listeners;
          self.listeners = [];
          listeners.forEach(cbListener);
        }
      }
      function cbListener(listener) {
        listener(self.error);
      }
    }
    function pendGo(self, fn) {
      fn(pendHold(self));
    }
  }
});

// node_modules/yauzl/fd-slicer.js
var require_fd_slicer = __commonJS({
  "node_modules/yauzl/fd-slicer.js"(exports) {
    var fs = __require("fs");
    var util = __require("util");
    var stream = __require("stream");
    var Readable = stream.Readable;
    var PassThrough = stream.PassThrough;
    var Pend = require_pend();
    var EventEmitter = __require("events").EventEmitter;
    exports.BufferSlicer = BufferSlicer;
    exports.FdSlicer = FdSlicer;
    util.inherits(FdSlicer, EventEmitter);
    function FdSlicer(fd) {
      EventEmitter.call(this);
      this.fd = fd;
      this.pend = new Pend();
      this.pend.max = 1;
      this.refCount = 0;
    }
    FdSlicer.prototype.read = function(buffer, offset, length, position, callback) {
      var self = this;
      self.pend.go(function(cb) {
        fs.read(self.fd, buffer, offset, length, position, function(err, bytesRead, buffer2) {
          cb();
          callback(err, bytesRead, buffer2);
        });
      });
    };
    FdSlicer.prototype.createReadStream = function(options2) {
      return new ReadStream(this, options2);
    };
    FdSlicer.prototype.ref = function() {
      this.refCount += 1;
    };
    FdSlicer.prototype.unref = function() {
      var self = this;
      self.refCount -= 1;
      if (self.refCount < 0) throw new Error("invalid unref");
      if (self.refCount > 0) return;
      fs.close(self.fd, onCloseDone);
      function onCloseDone(err) {
        if (err) {
          self.emit("error", err);
        } else {
          self.emit("close");
        }
      }
    };
    util.inherits(ReadStream, Readable);
    function ReadStream(context, options2) {
      options2 = options2 || {};
      Readable.call(this, options2);
      this.context = context;
      this.context.ref();
      this.start = options2.start || 0;
      this.endOffset = options2.end;
      this.pos = this.start;
    }
    ReadStream.prototype._read = function(n) {
      var self = this;
      var toRead = Math.min(self._readableState.highWaterMark, n);
      if (self.endOffset != null) {
        toRead = Math.min(toRead, self.endOffset - self.pos);
      }
      if (toRead <= 0) {
        self.push(null);
        this._cleanup();
        return;
      }
      self.context.pend.go(function(cb) {
        var buffer = Buffer.allocUnsafe(toRead);
        fs.read(self.context.fd, buffer, 0, toRead, self.pos, function(err, bytesRead) {
          if (err) {
            self.destroy(err);
          } else if (bytesRead === 0) {
            self.push(null);
            self._cleanup();
          } else {
            self.pos += bytesRead;
            self.push(buffer.slice(0, bytesRead));
          }
          cb();
        });
      });
    };
    ReadStream.prototype._destroy = function(err, cb) {
      this._cleanup();
      cb(err);
    };
    ReadStream.prototype._cleanup = function() {
      if (this.context != null) {
        this.context.unref();
        this.context = null;
      }
    };
    util.inherits(BufferSlicer, EventEmitter);
    function BufferSlicer(buffer) {
      EventEmitter.call(this);
      this.refCount = 0;
      this.buffer = buffer;
    }
    BufferSlicer.prototype.read = function(buffer, offset, length, position, callback) {
      if (!(0 <= offset && offset <= buffer.length)) throw new RangeError("offset outside buffer: 0 <= " + offset + " <= " + buffer.length);
      if (position < 0) throw new RangeError("position is negative: " + position);
      if (offset + length > buffer.length) {
        length = buffer.length - offset;
      }
      if (position + length > this.buffer.length) {
        length = this.buffer.length - position;
      }
      if (length <= 0) {
        setImmediate(function() {
          callback(null, 0);
        });
        return;
      }
      this.buffer.copy(buffer, offset, position, position + length);
      setImmediate(function() {
        callback(null, length);
      });
    };
    BufferSlicer.prototype.createReadStream = function(options2) {
      options2 = options2 || {};
      var readStream = new PassThrough(options2);
      readStream.start = options2.start || 0;
      readStream.endOffset = options2.end;
      readStream.pos = readStream.endOffset || this.buffer.length;
      var entireSlice = this.buffer.slice(readStream.start, readStream.pos);
      var maxChunkSize = 65536;
      var offset = 0;
      while (true) {
        var nextOffset = offset + maxChunkSize;
        if (nextOffset >= entireSlice.length) {
          if (offset < entireSlice.length) {
            readStream.write(entireSlice.slice(offset, entireSlice.length));
          }
          break;
        }
        readStream.write(entireSlice.slice(offset, nextOffset));
        offset = nextOffset;
      }
      readStream.end();
      return readStream;
    };
    BufferSlicer.prototype.ref = function() {
      this.refCount += 1;
    };
    BufferSlicer.prototype.unref = function() {
      this.refCount -= 1;
      if (this.refCount < 0) {
        throw new Error("invalid unref");
      }
    };
  }
});

// node_modules/yauzl/crc32.js
var require_crc32 = __commonJS({
  "node_modules/yauzl/crc32.js"(exports, module) {
    var CRC_TABLE = new Int32Array([
      0,
      1996959894,
      3993919788,
      2567524794,
      124634137,
      1886057615,
      3915621685,
      2657392035,
      249268274,
      2044508324,
      3772115230,
      2547177864,
      162941995,
      2125561021,
      3887607047,
      2428444049,
      498536548,
      1789927666,
      4089016648,
      2227061214,
      450548861,
      1843258603,
      4107580753,
      2211677639,
      325883990,
      1684777152,
      4251122042,
      2321926636,
      335633487,
      1661365465,
      4195302755,
      2366115317,
      997073096,
      1281953886,
      3579855332,
      2724688242,
      1006888145,
      1258607687,
      3524101629,
      2768942443,
      901097722,
      1119000684,
      3686517206,
      2898065728,
      853044451,
      1172266101,
      3705015759,
      2882616665,
      651767980,
      1373503546,
      3369554304,
      3218104598,
      565507253,
      1454621731,
      3485111705,
      3099436303,
      671266974,
      1594198024,
      3322730930,
      2970347812,
      795835527,
      1483230225,
      3244367275,
      3060149565,
      1994146192,
      31158534,
      2563907772,
      4023717930,
      1907459465,
      112637215,
      2680153253,
      3904427059,
      2013776290,
      251722036,
      2517215374,
      3775830040,
      2137656763,
      141376813,
      2439277719,
      3865271297,
      1802195444,
      476864866,
      2238001368,
      4066508878,
      1812370925,
      453092731,
      2181625025,
      4111451223,
      1706088902,
      314042704,
      2344532202,
      4240017532,
      1658658271,
      366619977,
      2362670323,
      4224994405,
      1303535960,
      984961486,
      2747007092,
      3569037538,
      1256170817,
      1037604311,
      2765210733,
      3554079995,
      1131014506,
      879679996,
      2909243462,
      3663771856,
      1141124467,
      855842277,
      2852801631,
      3708648649,
      1342533948,
      654459306,
      3188396048,
      3373015174,
      1466479909,
      544179635,
      3110523913,
      3462522015,
      1591671054,
      702138776,
      2966460450,
      3352799412,
      1504918807,
      783551873,
      3082640443,
      3233442989,
      3988292384,
      2596254646,
      62317068,
      1957810842,
      3939845945,
      2647816111,
      81470997,
      1943803523,
      3814918930,
      2489596804,
      225274430,
      2053790376,
      3826175755,
      2466906013,
      167816743,
      2097651377,
      4027552580,
      2265490386,
      503444072,
      1762050814,
      4150417245,
      2154129355,
      426522225,
      1852507879,
      4275313526,
      2312317920,
      282753626,
      1742555852,
      4189708143,
      2394877945,
      397917763,
      1622183637,
      3604390888,
      2714866558,
      953729732,
      1340076626,
      3518719985,
      2797360999,
      1068828381,
      1219638859,
      3624741850,
      2936675148,
      906185462,
      1090812512,
      3747672003,
      2825379669,
      829329135,
      1181335161,
      3412177804,
      3160834842,
      628085408,
      1382605366,
      3423369109,
      3138078467,
      570562233,
      1426400815,
      3317316542,
      2998733608,
      733239954,
      1555261956,
      3268935591,
      3050360625,
      752459403,
      1541320221,
      2607071920,
      3965973030,
      1969922972,
      40735498,
      2617837225,
      3943577151,
      1913087877,
      83908371,
      2512341634,
      3803740692,
      2075208622,
      213261112,
      2463272603,
      3855990285,
      2094854071,
      198958881,
      2262029012,
      4057260610,
      1759359992,
      534414190,
      2176718541,
      4139329115,
      1873836001,
      414664567,
      2282248934,
      4279200368,
      1711684554,
      285281116,
      2405801727,
      4167216745,
      1634467795,
      376229701,
      2685067896,
      3608007406,
      1308918612,
      956543938,
      2808555105,
      3495958263,
      1231636301,
      1047427035,
      2932959818,
      3654703836,
      1088359270,
      936918e3,
      2847714899,
      3736837829,
      1202900863,
      817233897,
      3183342108,
      3401237130,
      1404277552,
      615818150,
      3134207493,
      3453421203,
      1423857449,
      601450431,
      3009837614,
      3294710456,
      1567103746,
      711928724,
      3020668471,
      3272380065,
      1510334235,
      755167117
    ]);
    function crc32(buf) {
      let crc = -1;
      for (let x of buf) {
        crc = CRC_TABLE[(crc ^ x) & 255] ^ crc >>> 8;
      }
      return (crc ^ -1) >>> 0;
    }
    module.exports = crc32;
  }
});

// node_modules/yauzl/index.js
var require_yauzl = __commonJS({
  "node_modules/yauzl/index.js"(exports) {
    var fs = __require("fs");
    var zlib = __require("zlib");
    var fd_slicer = require_fd_slicer();
    var util = __require("util");
    var EventEmitter = __require("events").EventEmitter;
    var Transform = __require("stream").Transform;
    var PassThrough = __require("stream").PassThrough;
    var Writable = __require("stream").Writable;
    var crc32 = typeof zlib.crc32 === "function" ? zlib.crc32 : require_crc32();
    exports.open = open;
    exports.fromFd = fromFd;
    exports.fromBuffer = fromBuffer;
    exports.fromRandomAccessReader = fromRandomAccessReader;
    exports.openPromise = openPromise;
    exports.fromFdPromise = fromFdPromise;
    exports.fromBufferPromise = fromBufferPromise2;
    exports.fromRandomAccessReaderPromise = fromRandomAccessReaderPromise;
    exports.dosDateTimeToDate = dosDateTimeToDate;
    exports.getFileNameLowLevel = getFileNameLowLevel;
    exports.validateFileName = validateFileName;
    exports.parseExtraFields = parseExtraFields;
    exports.ZipFile = ZipFile;
    exports.Entry = Entry;
    exports.LocalFileHeader = LocalFileHeader;
    exports.RandomAccessReader = RandomAccessReader;
    function openPromise(path, options2) {
      return new Promise((resolve2, reject) => {
        open(path, { ...options2, lazyEntries: true }, function(err, zipfile) {
          if (err) return reject(err);
          resolve2(zipfile);
        });
      });
    }
    function fromFdPromise(fd, options2) {
      return new Promise((resolve2, reject) => {
        fromFd(fd, { ...options2, lazyEntries: true }, function(err, zipfile) {
          if (err) return reject(err);
          resolve2(zipfile);
        });
      });
    }
    function fromBufferPromise2(buffer, options2) {
      return new Promise((resolve2, reject) => {
        fromBuffer(buffer, { ...options2, lazyEntries: true }, function(err, zipfile) {
          if (err) return reject(err);
          resolve2(zipfile);
        });
      });
    }
    function fromRandomAccessReaderPromise(reader, totalSize, options2) {
      return new Promise((resolve2, reject) => {
        fromRandomAccessReader(reader, totalSize, { ...options2, lazyEntries: true }, function(err, zipfile) {
          if (err) return reject(err);
          resolve2(zipfile);
        });
      });
    }
    function open(path, options2, callback) {
      if (typeof options2 === "function") {
        callback = options2;
        options2 = null;
      }
      if (options2 == null) options2 = {};
      if (options2.autoClose == null) options2.autoClose = true;
      if (options2.lazyEntries == null) options2.lazyEntries = false;
      if (options2.decodeStrings == null) options2.decodeStrings = true;
      if (options2.validateEntrySizes == null) options2.validateEntrySizes = true;
      if (options2.strictFileNames == null) options2.strictFileNames = false;
      if (callback == null) callback = defaultCallback;
      fs.open(path, "r", function(err, fd) {
        if (err) return callback(err);
        fromFd(fd, options2, function(err2, zipfile) {
          if (err2) fs.close(fd, defaultCallback);
          callback(err2, zipfile);
        });
      });
    }
    function fromFd(fd, options2, callback) {
      if (typeof options2 === "function") {
        callback = options2;
        options2 = null;
      }
      if (options2 == null) options2 = {};
      if (options2.autoClose == null) options2.autoClose = false;
      if (options2.lazyEntries == null) options2.lazyEntries = false;
      if (options2.decodeStrings == null) options2.decodeStrings = true;
      if (options2.validateEntrySizes == null) options2.validateEntrySizes = true;
      if (options2.strictFileNames == null) options2.strictFileNames = false;
      if (callback == null) callback = defaultCallback;
      fs.fstat(fd, function(err, stats) {
        if (err) return callback(err);
        var reader = new fd_slicer.FdSlicer(fd);
        fromRandomAccessReader(reader, stats.size, options2, callback);
      });
    }
    function fromBuffer(buffer, options2, callback) {
      if (typeof options2 === "function") {
        callback = options2;
        options2 = null;
      }
      if (options2 == null) options2 = {};
      options2.autoClose = false;
      if (options2.lazyEntries == null) options2.lazyEntries = false;
      if (options2.decodeStrings == null) options2.decodeStrings = true;
      if (options2.validateEntrySizes == null) options2.validateEntrySizes = true;
      if (options2.strictFileNames == null) options2.strictFileNames = false;
      var reader = new fd_slicer.BufferSlicer(buffer);
      fromRandomAccessReader(reader, buffer.length, options2, callback);
    }
    function fromRandomAccessReader(reader, totalSize, options2, callback) {
      if (typeof options2 === "function") {
        callback = options2;
        options2 = null;
      }
      if (options2 == null) options2 = {};
      if (options2.autoClose == null) options2.autoClose = true;
      if (options2.lazyEntries == null) options2.lazyEntries = false;
      if (options2.decodeStrings == null) options2.decodeStrings = true;
      var decodeStrings = !!options2.decodeStrings;
      if (options2.validateEntrySizes == null) options2.validateEntrySizes = true;
      if (options2.strictFileNames == null) options2.strictFileNames = false;
      if (callback == null) callback = defaultCallback;
      if (typeof totalSize !== "number") throw new Error("expected totalSize parameter to be a number");
      if (totalSize > Number.MAX_SAFE_INTEGER) {
        throw new Error("zip file too large. only file sizes up to 2^52 are supported due to JavaScript's Number type being an IEEE 754 double.");
      }
      reader.ref();
      var eocdrWithoutCommentSize = 22;
      var zip64EocdlSize = 20;
      var maxCommentSize = 65535;
      var bufferSize = Math.min(zip64EocdlSize + eocdrWithoutCommentSize + maxCommentSize, totalSize);
      var buffer = newBuffer(bufferSize);
      var bufferReadStart = totalSize - buffer.length;
      readAndAssertNoEof(reader, buffer, 0, bufferSize, bufferReadStart, function(err) {
        if (err) return callback(err);
        for (var i = bufferSize - eocdrWithoutCommentSize; i >= 0; i -= 1) {
          if (buffer.readUInt32LE(i) !== 101010256) continue;
          var eocdrBuffer = buffer.subarray(i);
          var diskNumber = eocdrBuffer.readUInt16LE(4);
          var entryCount = eocdrBuffer.readUInt16LE(10);
          var centralDirectoryOffset = eocdrBuffer.readUInt32LE(16);
          var commentLength = eocdrBuffer.readUInt16LE(20);
          var expectedCommentLength = eocdrBuffer.length - eocdrWithoutCommentSize;
          if (commentLength !== expectedCommentLength) {
            return callback(new Error("Invalid comment length. Expected: " + expectedCommentLength + ". Found: " + commentLength + ". Are there extra bytes at the end of the file? Or is the end of central dir signature `PK\u263A\u263B` in the comment?"));
          }
          var comment = decodeStrings ? decodeBuffer(eocdrBuffer.subarray(22), false) : eocdrBuffer.subarray(22);
          if (i - zip64EocdlSize >= 0 && buffer.readUInt32LE(i - zip64EocdlSize) === 117853008) {
            var zip64EocdlBuffer = buffer.subarray(i - zip64EocdlSize, i - zip64EocdlSize + zip64EocdlSize);
            var zip64EocdrOffset = readUInt64LE(zip64EocdlBuffer, 8);
            var zip64EocdrBuffer = newBuffer(56);
            return readAndAssertNoEof(reader, zip64EocdrBuffer, 0, zip64EocdrBuffer.length, zip64EocdrOffset, function(err2) {
              if (err2) return callback(err2);
              if (zip64EocdrBuffer.readUInt32LE(0) !== 101075792) {
                return callback(new Error("invalid zip64 end of central directory record signature"));
              }
              diskNumber = zip64EocdrBuffer.readUInt32LE(16);
              if (diskNumber !== 0) {
                return callback(new Error("multi-disk zip files are not supported: found disk number: " + diskNumber));
              }
              entryCount = readUInt64LE(zip64EocdrBuffer, 32);
              centralDirectoryOffset = readUInt64LE(zip64EocdrBuffer, 48);
              return callback(null, new ZipFile(reader, centralDirectoryOffset, totalSize, entryCount, comment, options2.autoClose, options2.lazyEntries, decodeStrings, options2.validateEntrySizes, options2.strictFileNames));
            });
          }
          if (diskNumber !== 0) {
            return callback(new Error("multi-disk zip files are not supported: found disk number: " + diskNumber));
          }
          return callback(null, new ZipFile(reader, centralDirectoryOffset, totalSize, entryCount, comment, options2.autoClose, options2.lazyEntries, decodeStrings, options2.validateEntrySizes, options2.strictFileNames));
        }
        callback(new Error("End of central directory record signature not found. Either not a zip file, or file is truncated."));
      });
    }
    util.inherits(ZipFile, EventEmitter);
    function ZipFile(reader, centralDirectoryOffset, fileSize, entryCount, comment, autoClose, lazyEntries, decodeStrings, validateEntrySizes, strictFileNames) {
      var self = this;
      EventEmitter.call(self);
      self.reader = reader;
      self.reader.on("error", function(err) {
        emitError(self, err);
      });
      self.reader.once("close", function() {
        self.emit("close");
      });
      self.readEntryCursor = centralDirectoryOffset;
      self.fileSize = fileSize;
      self.entryCount = entryCount;
      self.comment = comment;
      self.entriesRead = 0;
      self.autoClose = !!autoClose;
      self.lazyEntries = !!lazyEntries;
      self.decodeStrings = !!decodeStrings;
      self.validateEntrySizes = !!validateEntrySizes;
      self.strictFileNames = !!strictFileNames;
      self.isOpen = true;
      self.emittedError = false;
      self.hasEachEntryBeenCalled = false;
      if (!self.lazyEntries) self._readEntry();
    }
    ZipFile.prototype.close = function() {
      if (!this.isOpen) return;
      this.isOpen = false;
      this.reader.unref();
    };
    function emitErrorAndAutoClose(self, err) {
      if (self.autoClose) self.close();
      emitError(self, err);
    }
    function emitError(self, err) {
      if (self.emittedError) return;
      self.emittedError = true;
      self.emit("error", err);
    }
    ZipFile.prototype.readEntry = function() {
      if (!this.lazyEntries) throw new Error("readEntry() called without lazyEntries:true");
      this._readEntry();
    };
    ZipFile.prototype._readEntry = function() {
      var self = this;
      if (self.entryCount === self.entriesRead) {
        setImmediate(function() {
          if (self.autoClose) self.close();
          if (self.emittedError) return;
          self.emit("end");
        });
        return;
      }
      if (self.emittedError) return;
      var buffer = newBuffer(46);
      readAndAssertNoEof(self.reader, buffer, 0, buffer.length, self.readEntryCursor, function(err) {
        if (err) return emitErrorAndAutoClose(self, err);
        if (self.emittedError) return;
        var entry = new Entry();
        var signature = buffer.readUInt32LE(0);
        if (signature !== 33639248) return emitErrorAndAutoClose(self, new Error("invalid central directory file header signature: 0x" + signature.toString(16)));
        entry.versionMadeBy = buffer.readUInt16LE(4);
        entry.versionNeededToExtract = buffer.readUInt16LE(6);
        entry.generalPurposeBitFlag = buffer.readUInt16LE(8);
        entry.compressionMethod = buffer.readUInt16LE(10);
        entry.lastModFileTime = buffer.readUInt16LE(12);
        entry.lastModFileDate = buffer.readUInt16LE(14);
        entry.crc32 = buffer.readUInt32LE(16);
        entry.compressedSize = buffer.readUInt32LE(20);
        entry.uncompressedSize = buffer.readUInt32LE(24);
        entry.fileNameLength = buffer.readUInt16LE(28);
        entry.extraFieldLength = buffer.readUInt16LE(30);
        entry.fileCommentLength = buffer.readUInt16LE(32);
        entry.internalFileAttributes = buffer.readUInt16LE(36);
        entry.externalFileAttributes = buffer.readUInt32LE(38);
        entry.relativeOffsetOfLocalHeader = buffer.readUInt32LE(42);
        if (entry.generalPurposeBitFlag & 64) return emitErrorAndAutoClose(self, new Error("strong encryption is not supported"));
        self.readEntryCursor += 46;
        buffer = newBuffer(entry.fileNameLength + entry.extraFieldLength + entry.fileCommentLength);
        readAndAssertNoEof(self.reader, buffer, 0, buffer.length, self.readEntryCursor, function(err2) {
          if (err2) return emitErrorAndAutoClose(self, err2);
          if (self.emittedError) return;
          entry.fileNameRaw = buffer.subarray(0, entry.fileNameLength);
          var fileCommentStart = entry.fileNameLength + entry.extraFieldLength;
          entry.extraFieldRaw = buffer.subarray(entry.fileNameLength, fileCommentStart);
          entry.fileCommentRaw = buffer.subarray(fileCommentStart, fileCommentStart + entry.fileCommentLength);
          try {
            entry.extraFields = parseExtraFields(entry.extraFieldRaw);
          } catch (err3) {
            return emitErrorAndAutoClose(self, err3);
          }
          if (self.decodeStrings) {
            var isUtf8 = (entry.generalPurposeBitFlag & 2048) !== 0;
            entry.fileComment = decodeBuffer(entry.fileCommentRaw, isUtf8);
            entry.fileName = getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, self.strictFileNames);
            var errorMessage = validateFileName(entry.fileName);
            if (errorMessage != null) return emitErrorAndAutoClose(self, new Error(errorMessage));
          } else {
            entry.fileComment = entry.fileCommentRaw;
            entry.fileName = entry.fileNameRaw;
          }
          entry.comment = entry.fileComment;
          self.readEntryCursor += buffer.length;
          self.entriesRead += 1;
          for (var i = 0; i < entry.extraFields.length; i++) {
            var extraField = entry.extraFields[i];
            if (extraField.id !== 1) continue;
            var zip64EiefBuffer = extraField.data;
            var index = 0;
            if (entry.uncompressedSize === 4294967295) {
              if (index + 8 > zip64EiefBuffer.length) {
                return emitErrorAndAutoClose(self, new Error("zip64 extended information extra field does not include uncompressed size"));
              }
              entry.uncompressedSize = readUInt64LE(zip64EiefBuffer, index);
              index += 8;
            }
            if (entry.compressedSize === 4294967295) {
              if (index + 8 > zip64EiefBuffer.length) {
                return emitErrorAndAutoClose(self, new Error("zip64 extended information extra field does not include compressed size"));
              }
              entry.compressedSize = readUInt64LE(zip64EiefBuffer, index);
              index += 8;
            }
            if (entry.relativeOffsetOfLocalHeader === 4294967295) {
              if (index + 8 > zip64EiefBuffer.length) {
                return emitErrorAndAutoClose(self, new Error("zip64 extended information extra field does not include relative header offset"));
              }
              entry.relativeOffsetOfLocalHeader = readUInt64LE(zip64EiefBuffer, index);
              index += 8;
            }
            break;
          }
          if (self.validateEntrySizes && entry.compressionMethod === 0) {
            var expectedCompressedSize = entry.uncompressedSize;
            if (entry.isEncrypted()) {
              expectedCompressedSize += 12;
            }
            if (entry.compressedSize !== expectedCompressedSize) {
              var msg = "compressed/uncompressed size mismatch for stored file: " + entry.compressedSize + " != " + entry.uncompressedSize;
              return emitErrorAndAutoClose(self, new Error(msg));
            }
          }
          self.emit("entry", entry);
          if (!self.lazyEntries) self._readEntry();
        });
      });
    };
    ZipFile.prototype.eachEntry = function() {
      const self = this;
      if (!self.lazyEntries) throw new Error("eachEntry() requires lazyEntries: true");
      if (self.hasEachEntryBeenCalled) throw new Error("eachEntry() must only be called once per ZipFile");
      self.hasEachEntryBeenCalled = true;
      let pendingResolveReject = null;
      self.on("entry", onEntry);
      self.on("end", onEnd);
      self.on("error", onError);
      function cleanup() {
        self.removeListener("entry", onEntry);
        self.removeListener("end", onEnd);
        self.removeListener("error", onError);
        if (self.autoClose) self.close();
      }
      function onEntry(entry) {
        let { resolve: resolve2 } = pendingResolveReject;
        pendingResolveReject = null;
        resolve2({ value: entry });
      }
      function onEnd() {
        let { resolve: resolve2 } = pendingResolveReject;
        pendingResolveReject = null;
        cleanup();
        resolve2({ done: true });
      }
      function onError(err) {
        let { reject } = pendingResolveReject;
        pendingResolveReject = null;
        cleanup();
        reject(err);
      }
      return {
        [Symbol.asyncIterator]() {
          return this;
        },
        next() {
          const promise = new Promise((resolve2, reject) => {
            if (pendingResolveReject != null) throw new Error("next() called before previous Promise was resolved.");
            pendingResolveReject = { resolve: resolve2, reject };
          });
          self.readEntry();
          return promise;
        },
        return(value2) {
          cleanup();
          return Promise.resolve({ done: true, value: value2 });
        },
        throw(value2) {
          cleanup();
          return Promise.reject(value2);
        }
      };
    };
    ZipFile.prototype.openReadStream = function(entry, options2, callback) {
      var self = this;
      var relativeStart = 0;
      var relativeEnd = entry.compressedSize;
      if (callback == null) {
        callback = options2;
        options2 = null;
      }
      if (options2 == null) {
        options2 = {};
      } else {
        if (options2.decodeFileData === false) {
          if (options2.decrypt != null) {
            throw new Error("cannot use options.decrypt when options.decodeFileData === false");
          }
          if (options2.decompress != null) {
            throw new Error("cannot use options.decompress when options.decodeFileData === false");
          }
        } else {
          if (options2.decrypt != null) {
            if (!entry.isEncrypted()) {
              throw new Error("options.decrypt can only be specified for encrypted entries. See also option decodeFileData.");
            }
            if (options2.decrypt !== false) throw new Error("invalid options.decrypt value: " + options2.decrypt);
            if (entry.isCompressed()) {
              if (options2.decompress !== false) throw new Error("entry is encrypted and compressed, and options.decompress !== false. See also option decodeFileData.");
            }
          }
          if (options2.decompress != null) {
            if (!entry.isCompressed()) {
              throw new Error("options.decompress can only be specified for compressed entries. See also option decodeFileData.");
            }
            if (!(options2.decompress === false || options2.decompress === true)) {
              throw new Error("invalid options.decompress value: " + options2.decompress);
            }
            decompress = options2.decompress;
          }
        }
        if (options2.start != null) {
          relativeStart = options2.start;
          if (relativeStart < 0) throw new Error("options.start < 0");
          if (relativeStart > entry.compressedSize) throw new Error("options.start > entry.compressedSize");
        }
        if (options2.end != null) {
          relativeEnd = options2.end;
          if (relativeEnd < 0) throw new Error("options.end < 0");
          if (relativeEnd > entry.compressedSize) throw new Error("options.end > entry.compressedSize");
          if (relativeEnd < relativeStart) throw new Error("options.end < options.start");
        }
      }
      var rawMode = options2.decodeFileData === false || // Explicitly requested raw.
      (entry.compressionMethod === 0 || // Naturally without compression.
      entry.compressionMethod === 8 && options2.decompress === false) && (!entry.isEncrypted() || // Naturally without encryption.
      options2.decrypt === false);
      if (options2.start != null || options2.end != null) {
        if (!rawMode) throw new Error("start/end range require options.decodeFileData === false for non-trivial encoded entries.");
      }
      if (!self.isOpen) return callback(new Error("closed"));
      if (entry.isEncrypted() && !rawMode) {
        if (options2.decrypt !== false) return callback(new Error("entry is encrypted, and options.decodeFileData !== false"));
      }
      var decompress;
      if (rawMode) {
        decompress = false;
      } else if (entry.compressionMethod === 8) {
        decompress = options2.decodeFileData !== true;
      } else {
        return callback(new Error("unsupported compression method: " + entry.compressionMethod));
      }
      self.readLocalFileHeader(entry, { minimal: true }, function(err, localFileHeader) {
        if (err) return callback(err);
        self.openReadStreamLowLevel(
          localFileHeader.fileDataStart,
          entry.compressedSize,
          relativeStart,
          relativeEnd,
          decompress,
          entry.uncompressedSize,
          callback
        );
      });
    };
    ZipFile.prototype.openReadStreamLowLevel = function(fileDataStart, compressedSize, relativeStart, relativeEnd, decompress, uncompressedSize, callback) {
      var self = this;
      var fileDataEnd = fileDataStart + compressedSize;
      var readStream = self.reader.createReadStream({
        start: fileDataStart + relativeStart,
        end: fileDataStart + relativeEnd
      });
      var endpointStream = readStream;
      if (decompress) {
        var destroyed = false;
        var inflateFilter = zlib.createInflateRaw();
        readStream.on("error", function(err) {
          setImmediate(function() {
            if (!destroyed) inflateFilter.emit("error", err);
          });
        });
        readStream.pipe(inflateFilter);
        if (self.validateEntrySizes) {
          endpointStream = new AssertByteCountStream(uncompressedSize);
          inflateFilter.on("error", function(err) {
            setImmediate(function() {
              if (!destroyed) endpointStream.emit("error", err);
            });
          });
          inflateFilter.pipe(endpointStream);
        } else {
          endpointStream = inflateFilter;
        }
        installDestroyFn(endpointStream, function() {
          destroyed = true;
          if (inflateFilter !== endpointStream) inflateFilter.unpipe(endpointStream);
          readStream.unpipe(inflateFilter);
          readStream.destroy();
        });
      }
      callback(null, endpointStream);
    };
    ZipFile.prototype.readLocalFileHeader = function(entry, options2, callback) {
      var self = this;
      if (callback == null) {
        callback = options2;
        options2 = null;
      }
      if (options2 == null) options2 = {};
      self.reader.ref();
      var buffer = newBuffer(30);
      readAndAssertNoEof(self.reader, buffer, 0, buffer.length, entry.relativeOffsetOfLocalHeader, function(err) {
        try {
          if (err) return callback(err);
          var signature = buffer.readUInt32LE(0);
          if (signature !== 67324752) {
            return callback(new Error("invalid local file header signature: 0x" + signature.toString(16)));
          }
          var fileNameLength = buffer.readUInt16LE(26);
          var extraFieldLength = buffer.readUInt16LE(28);
          var fileDataStart = entry.relativeOffsetOfLocalHeader + 30 + fileNameLength + extraFieldLength;
          if (fileDataStart + entry.compressedSize > self.fileSize) {
            return callback(new Error("file data overflows file bounds: " + fileDataStart + " + " + entry.compressedSize + " > " + self.fileSize));
          }
          if (options2.minimal) {
            return callback(null, { fileDataStart });
          }
          var localFileHeader = new LocalFileHeader();
          localFileHeader.fileDataStart = fileDataStart;
          localFileHeader.versionNeededToExtract = buffer.readUInt16LE(4);
          localFileHeader.generalPurposeBitFlag = buffer.readUInt16LE(6);
          localFileHeader.compressionMethod = buffer.readUInt16LE(8);
          localFileHeader.lastModFileTime = buffer.readUInt16LE(10);
          localFileHeader.lastModFileDate = buffer.readUInt16LE(12);
          localFileHeader.crc32 = buffer.readUInt32LE(14);
          localFileHeader.compressedSize = buffer.readUInt32LE(18);
          localFileHeader.uncompressedSize = buffer.readUInt32LE(22);
          localFileHeader.fileNameLength = fileNameLength;
          localFileHeader.extraFieldLength = extraFieldLength;
          buffer = newBuffer(fileNameLength + extraFieldLength);
          self.reader.ref();
          readAndAssertNoEof(self.reader, buffer, 0, buffer.length, entry.relativeOffsetOfLocalHeader + 30, function(err2) {
            try {
              if (err2) return callback(err2);
              localFileHeader.fileName = buffer.subarray(0, fileNameLength);
              localFileHeader.extraField = buffer.subarray(fileNameLength);
              return callback(null, localFileHeader);
            } finally {
              self.reader.unref();
            }
          });
        } finally {
          self.reader.unref();
        }
      });
    };
    ZipFile.prototype.openReadStreamPromise = function(entry, options2) {
      return new Promise((resolve2, reject) => {
        this.openReadStream(entry, options2, function(err, readStream) {
          if (err) return reject(err);
          resolve2(readStream);
        });
      });
    };
    ZipFile.prototype.openReadStreamLowLevelPromise = function(fileDataStart, compressedSize, relativeStart, relativeEnd, decompress, uncompressedSize) {
      return new Promise((resolve2, reject) => {
        this.openReadStream(fileDataStart, compressedSize, relativeStart, relativeEnd, decompress, uncompressedSize, function(err, readStream) {
          if (err) return reject(err);
          resolve2(readStream);
        });
      });
    };
    ZipFile.prototype.readLocalFileHeaderPromise = function(entry, options2) {
      return new Promise((resolve2, reject) => {
        this.readLocalFileHeader(entry, options2, function(err, localFileHeader) {
          if (err) return reject(err);
          resolve2(localFileHeader);
        });
      });
    };
    function Entry() {
    }
    Entry.prototype.getLastModDate = function(options2) {
      if (options2 == null) options2 = {};
      if (!options2.forceDosFormat) {
        for (var i = 0; i < this.extraFields.length; i++) {
          var extraField = this.extraFields[i];
          if (extraField.id === 21589) {
            var data = extraField.data;
            if (data.length < 5) continue;
            var flags = data[0];
            var HAS_MTIME = 1;
            if (!(flags & HAS_MTIME)) continue;
            var posixTimestamp = data.readInt32LE(1);
            return new Date(posixTimestamp * 1e3);
          } else if (extraField.id === 10) {
            var data = extraField.data;
            if (data.length !== 32) continue;
            if (data.readUInt16LE(4) !== 1) continue;
            if (data.readUInt16LE(6) !== 24) continue;
            var hundredNanoSecondsSince1601 = data.readUInt32LE(8) + 4294967296 * data.readInt32LE(12);
            var millisecondsSince1970 = hundredNanoSecondsSince1601 / 1e4 - 116444736e5;
            return new Date(millisecondsSince1970);
          }
        }
      }
      return dosDateTimeToDate(this.lastModFileDate, this.lastModFileTime, options2.timezone);
    };
    Entry.prototype.canDecodeFileData = function() {
      return !this.isEncrypted() && (this.compressionMethod === 0 || this.compressionMethod === 8);
    };
    Entry.prototype.isEncrypted = function() {
      return (this.generalPurposeBitFlag & 1) !== 0;
    };
    Entry.prototype.isCompressed = function() {
      return this.compressionMethod === 8;
    };
    function LocalFileHeader() {
    }
    function dosDateTimeToDate(date, time, timezone) {
      var day = date & 31;
      var month = (date >> 5 & 15) - 1;
      var year = (date >> 9 & 127) + 1980;
      var millisecond = 0;
      var second = (time & 31) * 2;
      var minute = time >> 5 & 63;
      var hour = time >> 11 & 31;
      if (timezone == null || timezone === "local") {
        return new Date(year, month, day, hour, minute, second, millisecond);
      } else if (timezone === "UTC") {
        return new Date(Date.UTC(year, month, day, hour, minute, second, millisecond));
      } else {
        throw new Error("unrecognized options.timezone: " + options.timezone);
      }
    }
    function getFileNameLowLevel(generalPurposeBitFlag, fileNameBuffer, extraFields, strictFileNames) {
      var fileName = null;
      for (var i = 0; i < extraFields.length; i++) {
        var extraField = extraFields[i];
        if (extraField.id === 28789) {
          if (extraField.data.length < 6) {
            continue;
          }
          if (extraField.data.readUInt8(0) !== 1) {
            continue;
          }
          var oldNameCrc32 = extraField.data.readUInt32LE(1);
          if (crc32(fileNameBuffer) !== oldNameCrc32) {
            continue;
          }
          fileName = decodeBuffer(extraField.data.subarray(5), true);
          break;
        }
      }
      if (fileName == null) {
        var isUtf8 = (generalPurposeBitFlag & 2048) !== 0;
        fileName = decodeBuffer(fileNameBuffer, isUtf8);
      }
      if (!strictFileNames) {
        fileName = fileName.replace(/\\/g, "/");
      }
      return fileName;
    }
    function validateFileName(fileName) {
      if (fileName.indexOf("\\") !== -1) {
        return "invalid characters in fileName: " + fileName;
      }
      if (/^[a-zA-Z]:/.test(fileName) || /^\//.test(fileName)) {
        return "absolute path: " + fileName;
      }
      if (fileName.split("/").indexOf("..") !== -1) {
        return "invalid relative path: " + fileName;
      }
      return null;
    }
    function parseExtraFields(extraFieldBuffer) {
      var extraFields = [];
      var i = 0;
      while (i < extraFieldBuffer.length - 3) {
        var headerId = extraFieldBuffer.readUInt16LE(i + 0);
        var dataSize = extraFieldBuffer.readUInt16LE(i + 2);
        var dataStart = i + 4;
        var dataEnd = dataStart + dataSize;
        if (dataEnd > extraFieldBuffer.length) throw new Error("extra field length exceeds extra field buffer size");
        var dataBuffer = extraFieldBuffer.subarray(dataStart, dataEnd);
        extraFields.push({
          id: headerId,
          data: dataBuffer
        });
        i = dataEnd;
      }
      return extraFields;
    }
    function readAndAssertNoEof(reader, buffer, offset, length, position, callback) {
      if (length === 0) {
        return setImmediate(function() {
          callback(null, newBuffer(0));
        });
      }
      reader.read(buffer, offset, length, position, function(err, bytesRead) {
        if (err) return callback(err);
        if (bytesRead < length) {
          return callback(new Error("unexpected EOF"));
        }
        callback();
      });
    }
    util.inherits(AssertByteCountStream, Transform);
    function AssertByteCountStream(byteCount) {
      Transform.call(this);
      this.actualByteCount = 0;
      this.expectedByteCount = byteCount;
    }
    AssertByteCountStream.prototype._transform = function(chunk, encoding, cb) {
      this.actualByteCount += chunk.length;
      if (this.actualByteCount > this.expectedByteCount) {
        var msg = "too many bytes in the stream. expected " + this.expectedByteCount + ". got at least " + this.actualByteCount;
        return cb(new Error(msg));
      }
      cb(null, chunk);
    };
    AssertByteCountStream.prototype._flush = function(cb) {
      if (this.actualByteCount < this.expectedByteCount) {
        var msg = "not enough bytes in the stream. expected " + this.expectedByteCount + ". got only " + this.actualByteCount;
        return cb(new Error(msg));
      }
      cb();
    };
    util.inherits(RandomAccessReader, EventEmitter);
    function RandomAccessReader() {
      EventEmitter.call(this);
      this.refCount = 0;
    }
    RandomAccessReader.prototype.ref = function() {
      this.refCount += 1;
    };
    RandomAccessReader.prototype.unref = function() {
      var self = this;
      self.refCount -= 1;
      if (self.refCount > 0) return;
      if (self.refCount < 0) throw new Error("invalid unref");
      self.close(onCloseDone);
      function onCloseDone(err) {
        if (err) return self.emit("error", err);
        self.emit("close");
      }
    };
    RandomAccessReader.prototype.createReadStream = function(options2) {
      if (options2 == null) options2 = {};
      var start = options2.start;
      var end = options2.end;
      if (start === end) {
        var emptyStream = new PassThrough();
        setImmediate(function() {
          emptyStream.end();
        });
        return emptyStream;
      }
      var stream = this._readStreamForRange(start, end);
      var destroyed = false;
      var refUnrefFilter = new RefUnrefFilter(this);
      stream.on("error", function(err) {
        setImmediate(function() {
          if (!destroyed) refUnrefFilter.emit("error", err);
        });
      });
      installDestroyFn(refUnrefFilter, function() {
        stream.unpipe(refUnrefFilter);
        refUnrefFilter.unref();
        stream.destroy();
      });
      var byteCounter = new AssertByteCountStream(end - start);
      refUnrefFilter.on("error", function(err) {
        setImmediate(function() {
          if (!destroyed) byteCounter.emit("error", err);
        });
      });
      installDestroyFn(byteCounter, function() {
        destroyed = true;
        refUnrefFilter.unpipe(byteCounter);
        refUnrefFilter.destroy();
      });
      return stream.pipe(refUnrefFilter).pipe(byteCounter);
    };
    RandomAccessReader.prototype._readStreamForRange = function(start, end) {
      throw new Error("not implemented");
    };
    RandomAccessReader.prototype.read = function(buffer, offset, length, position, callback) {
      var readStream = this.createReadStream({ start: position, end: position + length });
      var writeStream = new Writable();
      var written = 0;
      writeStream._write = function(chunk, encoding, cb) {
        chunk.copy(buffer, offset + written, 0, chunk.length);
        written += chunk.length;
        cb();
      };
      writeStream.on("finish", callback);
      readStream.on("error", function(error) {
        callback(error);
      });
      readStream.pipe(writeStream);
    };
    RandomAccessReader.prototype.close = function(callback) {
      setImmediate(callback);
    };
    util.inherits(RefUnrefFilter, PassThrough);
    function RefUnrefFilter(context) {
      PassThrough.call(this);
      this.context = context;
      this.context.ref();
      this.unreffedYet = false;
    }
    RefUnrefFilter.prototype._flush = function(cb) {
      this.unref();
      cb();
    };
    RefUnrefFilter.prototype.unref = function(cb) {
      if (this.unreffedYet) return;
      this.unreffedYet = true;
      this.context.unref();
    };
    var cp437 = "\0\u263A\u263B\u2665\u2666\u2663\u2660\u2022\u25D8\u25CB\u25D9\u2642\u2640\u266A\u266B\u263C\u25BA\u25C4\u2195\u203C\xB6\xA7\u25AC\u21A8\u2191\u2193\u2192\u2190\u221F\u2194\u25B2\u25BC !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\u2302\xC7\xFC\xE9\xE2\xE4\xE0\xE5\xE7\xEA\xEB\xE8\xEF\xEE\xEC\xC4\xC5\xC9\xE6\xC6\xF4\xF6\xF2\xFB\xF9\xFF\xD6\xDC\xA2\xA3\xA5\u20A7\u0192\xE1\xED\xF3\xFA\xF1\xD1\xAA\xBA\xBF\u2310\xAC\xBD\xBC\xA1\xAB\xBB\u2591\u2592\u2593\u2502\u2524\u2561\u2562\u2556\u2555\u2563\u2551\u2557\u255D\u255C\u255B\u2510\u2514\u2534\u252C\u251C\u2500\u253C\u255E\u255F\u255A\u2554\u2569\u2566\u2560\u2550\u256C\u2567\u2568\u2564\u2565\u2559\u2558\u2552\u2553\u256B\u256A\u2518\u250C\u2588\u2584\u258C\u2590\u2580\u03B1\xDF\u0393\u03C0\u03A3\u03C3\xB5\u03C4\u03A6\u0398\u03A9\u03B4\u221E\u03C6\u03B5\u2229\u2261\xB1\u2265\u2264\u2320\u2321\xF7\u2248\xB0\u2219\xB7\u221A\u207F\xB2\u25A0\xA0";
    function decodeBuffer(buffer, isUtf8) {
      if (isUtf8) {
        return buffer.toString("utf8");
      } else {
        var result = "";
        for (var i = 0; i < buffer.length; i++) {
          result += cp437[buffer[i]];
        }
        return result;
      }
    }
    function readUInt64LE(buffer, offset) {
      var lower32 = buffer.readUInt32LE(offset);
      var upper32 = buffer.readUInt32LE(offset + 4);
      return upper32 * 4294967296 + lower32;
    }
    var newBuffer;
    if (typeof Buffer.allocUnsafe === "function") {
      newBuffer = function(len) {
        return Buffer.allocUnsafe(len);
      };
    } else {
      newBuffer = function(len) {
        return new Buffer(len);
      };
    }
    function installDestroyFn(stream, fn) {
      if (typeof stream.destroy === "function") {
        stream._destroy = function(err, cb) {
          fn();
          if (cb != null) cb(err);
        };
      } else {
        stream.destroy = fn;
      }
    }
    function defaultCallback(err) {
      if (err) throw err;
    }
  }
});

// src/bot/bot-app.ts
import { setTimeout as sleep } from "node:timers/promises";

// node_modules/@octokit/oauth-authorization-url/dist-src/index.js
function oauthAuthorizationUrl(options2) {
  const clientType = options2.clientType || "oauth-app";
  const baseUrl = options2.baseUrl || "https://github.com";
  const result = {
    clientType,
    allowSignup: options2.allowSignup === false ? false : true,
    clientId: options2.clientId,
    login: options2.login || null,
    redirectUrl: options2.redirectUrl || null,
    state: options2.state || Math.random().toString(36).substr(2),
    url: ""
  };
  if (clientType === "oauth-app") {
    const scopes = "scopes" in options2 ? options2.scopes : [];
    result.scopes = typeof scopes === "string" ? scopes.split(/[,\s]+/).filter(Boolean) : scopes;
  }
  result.url = urlBuilderAuthorize(`${baseUrl}/login/oauth/authorize`, result);
  return result;
}
function urlBuilderAuthorize(base, options2) {
  const map = {
    allowSignup: "allow_signup",
    clientId: "client_id",
    login: "login",
    redirectUrl: "redirect_uri",
    scopes: "scope",
    state: "state"
  };
  let url = base;
  Object.keys(map).filter((k) => options2[k] !== null).filter((k) => {
    if (k !== "scopes") return true;
    if (options2.clientType === "github-app") return false;
    return !Array.isArray(options2[k]) || options2[k].length > 0;
  }).map((key) => [map[key], `${options2[key]}`]).forEach(([key, value2], index) => {
    url += index === 0 ? `?` : "&";
    url += `${key}=${encodeURIComponent(value2)}`;
  });
  return url;
}

// node_modules/@octokit/oauth-methods/dist-bundle/index.js
function requestToOAuthBaseUrl(request2) {
  const endpointDefaults = request2.endpoint.DEFAULTS;
  if (/^https:\/\/(api\.)?github\.com$/.test(endpointDefaults.baseUrl)) {
    return "https://github.com";
  }
  if (/^https:\/\/api\..*\.ghe\.com$/.test(endpointDefaults.baseUrl)) {
    return endpointDefaults.baseUrl.replace("api.", "");
  }
  return endpointDefaults.baseUrl.replace("/api/v3", "");
}
async function oauthRequest(request2, route, parameters) {
  const withOAuthParameters = {
    baseUrl: requestToOAuthBaseUrl(request2),
    headers: {
      accept: "application/json"
    },
    ...parameters
  };
  const response = await request2(route, withOAuthParameters);
  if ("error" in response.data) {
    const error = new RequestError(
      `${response.data.error_description} (${response.data.error}, ${response.data.error_uri})`,
      400,
      {
        request: request2.endpoint.merge(
          route,
          withOAuthParameters
        )
      }
    );
    error.response = response;
    throw error;
  }
  return response;
}
function getWebFlowAuthorizationUrl({
  request: request2 = request,
  ...options2
}) {
  const baseUrl = requestToOAuthBaseUrl(request2);
  return oauthAuthorizationUrl({
    ...options2,
    baseUrl
  });
}
async function exchangeWebFlowCode(options2) {
  const request2 = options2.request || request;
  const response = await oauthRequest(
    request2,
    "POST /login/oauth/access_token",
    {
      client_id: options2.clientId,
      client_secret: options2.clientSecret,
      code: options2.code,
      redirect_uri: options2.redirectUrl
    }
  );
  const authentication = {
    clientType: options2.clientType,
    clientId: options2.clientId,
    clientSecret: options2.clientSecret,
    token: response.data.access_token,
    scopes: response.data.scope.split(/\s+/).filter(Boolean)
  };
  if (options2.clientType === "github-app") {
    if ("refresh_token" in response.data) {
      const apiTimeInMs = new Date(response.headers.date).getTime();
      authentication.refreshToken = response.data.refresh_token, authentication.expiresAt = toTimestamp(
        apiTimeInMs,
        response.data.expires_in
      ), authentication.refreshTokenExpiresAt = toTimestamp(
        apiTimeInMs,
        response.data.refresh_token_expires_in
      );
    }
    delete authentication.scopes;
  }
  return { ...response, authentication };
}
function toTimestamp(apiTimeInMs, expirationInSeconds) {
  return new Date(apiTimeInMs + expirationInSeconds * 1e3).toISOString();
}
async function createDeviceCode(options2) {
  const request2 = options2.request || request;
  const parameters = {
    client_id: options2.clientId
  };
  if ("scopes" in options2 && Array.isArray(options2.scopes)) {
    parameters.scope = options2.scopes.join(" ");
  }
  return oauthRequest(request2, "POST /login/device/code", parameters);
}
async function exchangeDeviceCode(options2) {
  const request2 = options2.request || request;
  const response = await oauthRequest(
    request2,
    "POST /login/oauth/access_token",
    {
      client_id: options2.clientId,
      device_code: options2.code,
      grant_type: "urn:ietf:params:oauth:grant-type:device_code"
    }
  );
  const authentication = {
    clientType: options2.clientType,
    clientId: options2.clientId,
    token: response.data.access_token,
    scopes: response.data.scope.split(/\s+/).filter(Boolean)
  };
  if ("clientSecret" in options2) {
    authentication.clientSecret = options2.clientSecret;
  }
  if (options2.clientType === "github-app") {
    if ("refresh_token" in response.data) {
      const apiTimeInMs = new Date(response.headers.date).getTime();
      authentication.refreshToken = response.data.refresh_token, authentication.expiresAt = toTimestamp2(
        apiTimeInMs,
        response.data.expires_in
      ), authentication.refreshTokenExpiresAt = toTimestamp2(
        apiTimeInMs,
        response.data.refresh_token_expires_in
      );
    }
    delete authentication.scopes;
  }
  return { ...response, authentication };
}
function toTimestamp2(apiTimeInMs, expirationInSeconds) {
  return new Date(apiTimeInMs + expirationInSeconds * 1e3).toISOString();
}
async function checkToken(options2) {
  const request2 = options2.request || request;
  const response = await request2("POST /applications/{client_id}/token", {
    headers: {
      authorization: `basic ${btoa(
        `${options2.clientId}:${options2.clientSecret}`
      )}`
    },
    client_id: options2.clientId,
    access_token: options2.token
  });
  const authentication = {
    clientType: options2.clientType,
    clientId: options2.clientId,
    clientSecret: options2.clientSecret,
    token: options2.token,
    scopes: response.data.scopes
  };
  if (response.data.expires_at)
    authentication.expiresAt = response.data.expires_at;
  if (options2.clientType === "github-app") {
    delete authentication.scopes;
  }
  return { ...response, authentication };
}
async function refreshToken(options2) {
  const request2 = options2.request || request;
  const response = await oauthRequest(
    request2,
    "POST /login/oauth/access_token",
    {
      client_id: options2.clientId,
      client_secret: options2.clientSecret,
      grant_type: "refresh_token",
      refresh_token: options2.refreshToken
    }
  );
  const apiTimeInMs = new Date(response.headers.date).getTime();
  const authentication = {
    clientType: "github-app",
    clientId: options2.clientId,
    clientSecret: options2.clientSecret,
    token: response.data.access_token,
    refreshToken: response.data.refresh_token,
    expiresAt: toTimestamp3(apiTimeInMs, response.data.expires_in),
    refreshTokenExpiresAt: toTimestamp3(
      apiTimeInMs,
      response.data.refresh_token_expires_in
    )
  };
  return { ...response, authentication };
}
function toTimestamp3(apiTimeInMs, expirationInSeconds) {
  return new Date(apiTimeInMs + expirationInSeconds * 1e3).toISOString();
}
async function scopeToken(options2) {
  const {
    request: optionsRequest,
    clientType,
    clientId,
    clientSecret,
    token,
    ...requestOptions
  } = options2;
  const request2 = options2.request || request;
  const response = await request2(
    "POST /applications/{client_id}/token/scoped",
    {
      headers: {
        authorization: `basic ${btoa(`${clientId}:${clientSecret}`)}`
      },
      client_id: clientId,
      access_token: token,
      ...requestOptions
    }
  );
  const authentication = Object.assign(
    {
      clientType,
      clientId,
      clientSecret,
      token: response.data.token
    },
    response.data.expires_at ? { expiresAt: response.data.expires_at } : {}
  );
  return { ...response, authentication };
}
async function resetToken(options2) {
  const request2 = options2.request || request;
  const auth6 = btoa(`${options2.clientId}:${options2.clientSecret}`);
  const response = await request2(
    "PATCH /applications/{client_id}/token",
    {
      headers: {
        authorization: `basic ${auth6}`
      },
      client_id: options2.clientId,
      access_token: options2.token
    }
  );
  const authentication = {
    clientType: options2.clientType,
    clientId: options2.clientId,
    clientSecret: options2.clientSecret,
    token: response.data.token,
    scopes: response.data.scopes
  };
  if (response.data.expires_at)
    authentication.expiresAt = response.data.expires_at;
  if (options2.clientType === "github-app") {
    delete authentication.scopes;
  }
  return { ...response, authentication };
}
async function deleteToken(options2) {
  const request2 = options2.request || request;
  const auth6 = btoa(`${options2.clientId}:${options2.clientSecret}`);
  return request2(
    "DELETE /applications/{client_id}/token",
    {
      headers: {
        authorization: `basic ${auth6}`
      },
      client_id: options2.clientId,
      access_token: options2.token
    }
  );
}
async function deleteAuthorization(options2) {
  const request2 = options2.request || request;
  const auth6 = btoa(`${options2.clientId}:${options2.clientSecret}`);
  return request2(
    "DELETE /applications/{client_id}/grant",
    {
      headers: {
        authorization: `basic ${auth6}`
      },
      client_id: options2.clientId,
      access_token: options2.token
    }
  );
}

// node_modules/@octokit/auth-oauth-device/dist-bundle/index.js
async function getOAuthAccessToken(state, options2) {
  const cachedAuthentication = getCachedAuthentication(state, options2.auth);
  if (cachedAuthentication) return cachedAuthentication;
  const { data: verification } = await createDeviceCode({
    clientType: state.clientType,
    clientId: state.clientId,
    request: options2.request || state.request,
    // @ts-expect-error the extra code to make TS happy is not worth it
    scopes: options2.auth.scopes || state.scopes
  });
  await state.onVerification(verification);
  const authentication = await waitForAccessToken(
    options2.request || state.request,
    state.clientId,
    state.clientType,
    verification
  );
  state.authentication = authentication;
  return authentication;
}
function getCachedAuthentication(state, auth22) {
  if (auth22.refresh === true) return false;
  if (!state.authentication) return false;
  if (state.clientType === "github-app") {
    return state.authentication;
  }
  const authentication = state.authentication;
  const newScope = ("scopes" in auth22 && auth22.scopes || state.scopes).join(
    " "
  );
  const currentScope = authentication.scopes.join(" ");
  return newScope === currentScope ? authentication : false;
}
async function wait(seconds) {
  await new Promise((resolve2) => setTimeout(resolve2, seconds * 1e3));
}
async function waitForAccessToken(request2, clientId, clientType, verification) {
  try {
    const options2 = {
      clientId,
      request: request2,
      code: verification.device_code
    };
    const { authentication } = clientType === "oauth-app" ? await exchangeDeviceCode({
      ...options2,
      clientType: "oauth-app"
    }) : await exchangeDeviceCode({
      ...options2,
      clientType: "github-app"
    });
    return {
      type: "token",
      tokenType: "oauth",
      ...authentication
    };
  } catch (error) {
    if (!error.response) throw error;
    const errorType = error.response.data.error;
    if (errorType === "authorization_pending") {
      await wait(verification.interval);
      return waitForAccessToken(request2, clientId, clientType, verification);
    }
    if (errorType === "slow_down") {
      await wait(verification.interval + 7);
      return waitForAccessToken(request2, clientId, clientType, verification);
    }
    throw error;
  }
}
async function auth(state, authOptions) {
  return getOAuthAccessToken(state, {
    auth: authOptions
  });
}
async function hook(state, request2, route, parameters) {
  let endpoint = request2.endpoint.merge(
    route,
    parameters
  );
  if (/\/login\/(oauth\/access_token|device\/code)$/.test(endpoint.url)) {
    return request2(endpoint);
  }
  const { token } = await getOAuthAccessToken(state, {
    request: request2,
    auth: { type: "oauth" }
  });
  endpoint.headers.authorization = `token ${token}`;
  return request2(endpoint);
}
var VERSION = "0.0.0-development";
function createOAuthDeviceAuth(options2) {
  const requestWithDefaults = options2.request || request.defaults({
    headers: {
      "user-agent": `octokit-auth-oauth-device.js/${VERSION} ${getUserAgent()}`
    }
  });
  const { request: request2 = requestWithDefaults, ...otherOptions } = options2;
  const state = options2.clientType === "github-app" ? {
    ...otherOptions,
    clientType: "github-app",
    request: request2
  } : {
    ...otherOptions,
    clientType: "oauth-app",
    request: request2,
    scopes: options2.scopes || []
  };
  if (!options2.clientId) {
    throw new Error(
      '[@octokit/auth-oauth-device] "clientId" option must be set (https://github.com/octokit/auth-oauth-device.js#usage)'
    );
  }
  if (!options2.onVerification) {
    throw new Error(
      '[@octokit/auth-oauth-device] "onVerification" option must be a function (https://github.com/octokit/auth-oauth-device.js#usage)'
    );
  }
  return Object.assign(auth.bind(null, state), {
    hook: hook.bind(null, state)
  });
}

// node_modules/@octokit/auth-oauth-user/dist-bundle/index.js
var VERSION2 = "0.0.0-development";
async function getAuthentication(state) {
  if ("code" in state.strategyOptions) {
    const { authentication } = await exchangeWebFlowCode({
      clientId: state.clientId,
      clientSecret: state.clientSecret,
      clientType: state.clientType,
      onTokenCreated: state.onTokenCreated,
      ...state.strategyOptions,
      request: state.request
    });
    return {
      type: "token",
      tokenType: "oauth",
      ...authentication
    };
  }
  if ("onVerification" in state.strategyOptions) {
    const deviceAuth = createOAuthDeviceAuth({
      clientType: state.clientType,
      clientId: state.clientId,
      onTokenCreated: state.onTokenCreated,
      ...state.strategyOptions,
      request: state.request
    });
    const authentication = await deviceAuth({
      type: "oauth"
    });
    return {
      clientSecret: state.clientSecret,
      ...authentication
    };
  }
  if ("token" in state.strategyOptions) {
    return {
      type: "token",
      tokenType: "oauth",
      clientId: state.clientId,
      clientSecret: state.clientSecret,
      clientType: state.clientType,
      onTokenCreated: state.onTokenCreated,
      ...state.strategyOptions
    };
  }
  throw new Error("[@octokit/auth-oauth-user] Invalid strategy options");
}
async function auth2(state, options2 = {}) {
  if (!state.authentication) {
    state.authentication = state.clientType === "oauth-app" ? await getAuthentication(state) : await getAuthentication(state);
  }
  if (state.authentication.invalid) {
    throw new Error("[@octokit/auth-oauth-user] Token is invalid");
  }
  const currentAuthentication = state.authentication;
  if ("expiresAt" in currentAuthentication) {
    if (options2.type === "refresh" || new Date(currentAuthentication.expiresAt) < /* @__PURE__ */ new Date()) {
      const { authentication } = await refreshToken({
        clientType: "github-app",
        clientId: state.clientId,
        clientSecret: state.clientSecret,
        refreshToken: currentAuthentication.refreshToken,
        request: state.request
      });
      state.authentication = {
        tokenType: "oauth",
        type: "token",
        ...authentication
      };
    }
  }
  if (options2.type === "refresh") {
    if (state.clientType === "oauth-app") {
      throw new Error(
        "[@octokit/auth-oauth-user] OAuth Apps do not support expiring tokens"
      );
    }
    if (!currentAuthentication.hasOwnProperty("expiresAt")) {
      throw new Error("[@octokit/auth-oauth-user] Refresh token missing");
    }
    await state.onTokenCreated?.(state.authentication, {
      type: options2.type
    });
  }
  if (options2.type === "check" || options2.type === "reset") {
    const method = options2.type === "check" ? checkToken : resetToken;
    try {
      const { authentication } = await method({
        // @ts-expect-error making TS happy would require unnecessary code so no
        clientType: state.clientType,
        clientId: state.clientId,
        clientSecret: state.clientSecret,
        token: state.authentication.token,
        request: state.request
      });
      state.authentication = {
        tokenType: "oauth",
        type: "token",
        // @ts-expect-error TBD
        ...authentication
      };
      if (options2.type === "reset") {
        await state.onTokenCreated?.(state.authentication, {
          type: options2.type
        });
      }
      return state.authentication;
    } catch (error) {
      if (error.status === 404) {
        error.message = "[@octokit/auth-oauth-user] Token is invalid";
        state.authentication.invalid = true;
      }
      throw error;
    }
  }
  if (options2.type === "delete" || options2.type === "deleteAuthorization") {
    const method = options2.type === "delete" ? deleteToken : deleteAuthorization;
    try {
      await method({
        // @ts-expect-error making TS happy would require unnecessary code so no
        clientType: state.clientType,
        clientId: state.clientId,
        clientSecret: state.clientSecret,
        token: state.authentication.token,
        request: state.request
      });
    } catch (error) {
      if (error.status !== 404) throw error;
    }
    state.authentication.invalid = true;
    return state.authentication;
  }
  return state.authentication;
}
var ROUTES_REQUIRING_BASIC_AUTH = /\/applications\/[^/]+\/(token|grant)s?/;
function requiresBasicAuth(url) {
  return url && ROUTES_REQUIRING_BASIC_AUTH.test(url);
}
async function hook2(state, request2, route, parameters = {}) {
  const endpoint = request2.endpoint.merge(
    route,
    parameters
  );
  if (/\/login\/(oauth\/access_token|device\/code)$/.test(endpoint.url)) {
    return request2(endpoint);
  }
  if (requiresBasicAuth(endpoint.url)) {
    const credentials = btoa(`${state.clientId}:${state.clientSecret}`);
    endpoint.headers.authorization = `basic ${credentials}`;
    return request2(endpoint);
  }
  const { token } = state.clientType === "oauth-app" ? await auth2({ ...state, request: request2 }) : await auth2({ ...state, request: request2 });
  endpoint.headers.authorization = "token " + token;
  return request2(endpoint);
}
function createOAuthUserAuth({
  clientId,
  clientSecret,
  clientType = "oauth-app",
  request: request2 = request.defaults({
    headers: {
      "user-agent": `octokit-auth-oauth-app.js/${VERSION2} ${getUserAgent()}`
    }
  }),
  onTokenCreated,
  ...strategyOptions
}) {
  const state = Object.assign({
    clientType,
    clientId,
    clientSecret,
    onTokenCreated,
    strategyOptions,
    request: request2
  });
  return Object.assign(auth2.bind(null, state), {
    // @ts-expect-error not worth the extra code needed to appease TS
    hook: hook2.bind(null, state)
  });
}
createOAuthUserAuth.VERSION = VERSION2;

// node_modules/@octokit/auth-oauth-app/dist-bundle/index.js
async function auth3(state, authOptions) {
  if (authOptions.type === "oauth-app") {
    return {
      type: "oauth-app",
      clientId: state.clientId,
      clientSecret: state.clientSecret,
      clientType: state.clientType,
      headers: {
        authorization: `basic ${btoa(
          `${state.clientId}:${state.clientSecret}`
        )}`
      }
    };
  }
  if ("factory" in authOptions) {
    const { type, ...options2 } = {
      ...authOptions,
      ...state
    };
    return authOptions.factory(options2);
  }
  const common = {
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    request: state.request,
    ...authOptions
  };
  const userAuth = state.clientType === "oauth-app" ? await createOAuthUserAuth({
    ...common,
    clientType: state.clientType
  }) : await createOAuthUserAuth({
    ...common,
    clientType: state.clientType
  });
  return userAuth();
}
async function hook3(state, request2, route, parameters) {
  let endpoint = request2.endpoint.merge(
    route,
    parameters
  );
  if (/\/login\/(oauth\/access_token|device\/code)$/.test(endpoint.url)) {
    return request2(endpoint);
  }
  if (state.clientType === "github-app" && !requiresBasicAuth(endpoint.url)) {
    throw new Error(
      `[@octokit/auth-oauth-app] GitHub Apps cannot use their client ID/secret for basic authentication for endpoints other than "/applications/{client_id}/**". "${endpoint.method} ${endpoint.url}" is not supported.`
    );
  }
  const credentials = btoa(`${state.clientId}:${state.clientSecret}`);
  endpoint.headers.authorization = `basic ${credentials}`;
  try {
    return await request2(endpoint);
  } catch (error) {
    if (error.status !== 401) throw error;
    error.message = `[@octokit/auth-oauth-app] "${endpoint.method} ${endpoint.url}" does not support clientId/clientSecret basic authentication.`;
    throw error;
  }
}
var VERSION3 = "0.0.0-development";
function createOAuthAppAuth(options2) {
  const state = Object.assign(
    {
      request: request.defaults({
        headers: {
          "user-agent": `octokit-auth-oauth-app.js/${VERSION3} ${getUserAgent()}`
        }
      }),
      clientType: "oauth-app"
    },
    options2
  );
  return Object.assign(auth3.bind(null, state), {
    hook: hook3.bind(null, state)
  });
}

// node_modules/universal-github-app-jwt/lib/utils.js
function isPkcs1(privateKey) {
  return privateKey.includes("-----BEGIN RSA PRIVATE KEY-----");
}
function isOpenSsh(privateKey) {
  return privateKey.includes("-----BEGIN OPENSSH PRIVATE KEY-----");
}
function string2ArrayBuffer(str) {
  const buf = new ArrayBuffer(str.length);
  const bufView = new Uint8Array(buf);
  for (let i = 0, strLen = str.length; i < strLen; i++) {
    bufView[i] = str.charCodeAt(i);
  }
  return buf;
}
function getDERfromPEM(pem) {
  const pemB64 = pem.trim().split("\n").slice(1, -1).join("");
  const decoded = atob(pemB64);
  return string2ArrayBuffer(decoded);
}
function getEncodedMessage(header2, payload) {
  return `${base64encodeJSON(header2)}.${base64encodeJSON(payload)}`;
}
function base64encode(buffer) {
  var binary = "";
  var bytes = new Uint8Array(buffer);
  var len = bytes.byteLength;
  for (var i = 0; i < len; i++) {
    binary += String.fromCharCode(bytes[i]);
  }
  return fromBase64(btoa(binary));
}
function fromBase64(base64) {
  return base64.replace(/=/g, "").replace(/\+/g, "-").replace(/\//g, "_");
}
function base64encodeJSON(obj) {
  return fromBase64(btoa(JSON.stringify(obj)));
}

// node_modules/universal-github-app-jwt/lib/crypto-node.js
import { subtle } from "node:crypto";
import { createPrivateKey } from "node:crypto";
function convertPrivateKey(privateKey) {
  if (!isPkcs1(privateKey)) return privateKey;
  return createPrivateKey(privateKey).export({
    type: "pkcs8",
    format: "pem"
  });
}

// node_modules/universal-github-app-jwt/lib/get-token.js
async function getToken({ privateKey, payload }) {
  const convertedPrivateKey = convertPrivateKey(privateKey);
  if (isPkcs1(convertedPrivateKey)) {
    throw new Error(
      "[universal-github-app-jwt] Private Key is in PKCS#1 format, but only PKCS#8 is supported. See https://github.com/gr2m/universal-github-app-jwt#private-key-formats"
    );
  }
  if (isOpenSsh(convertedPrivateKey)) {
    throw new Error(
      "[universal-github-app-jwt] Private Key is in OpenSSH format, but only PKCS#8 is supported. See https://github.com/gr2m/universal-github-app-jwt#private-key-formats"
    );
  }
  const algorithm = {
    name: "RSASSA-PKCS1-v1_5",
    hash: { name: "SHA-256" }
  };
  const header2 = { alg: "RS256", typ: "JWT" };
  const privateKeyDER = getDERfromPEM(convertedPrivateKey);
  const importedKey = await subtle.importKey(
    "pkcs8",
    privateKeyDER,
    algorithm,
    false,
    ["sign"]
  );
  const encodedMessage = getEncodedMessage(header2, payload);
  const encodedMessageArrBuf = string2ArrayBuffer(encodedMessage);
  const signatureArrBuf = await subtle.sign(
    algorithm.name,
    importedKey,
    encodedMessageArrBuf
  );
  const encodedSignature = base64encode(signatureArrBuf);
  return `${encodedMessage}.${encodedSignature}`;
}

// node_modules/universal-github-app-jwt/index.js
async function githubAppJwt({
  id,
  privateKey,
  now = Math.floor(Date.now() / 1e3)
}) {
  const privateKeyWithNewlines = privateKey.replace(/\\n/g, "\n");
  const nowWithSafetyMargin = now - 30;
  const expiration = nowWithSafetyMargin + 60 * 10;
  const payload = {
    iat: nowWithSafetyMargin,
    // Issued at time
    exp: expiration,
    iss: id
  };
  const token = await getToken({
    privateKey: privateKeyWithNewlines,
    payload
  });
  return {
    appId: id,
    expiration,
    token
  };
}

// node_modules/toad-cache/dist/toad-cache.mjs
function validateCacheParams(max, ttlInMsecs) {
  if (typeof max !== "number" || !Number.isInteger(max) || max < 0) {
    throw new Error("Invalid max value");
  }
  if (typeof ttlInMsecs !== "number" || !Number.isInteger(ttlInMsecs) || ttlInMsecs < 0) {
    throw new Error("Invalid ttl value");
  }
}
var LruObject = class {
  constructor(max = 1e3, ttlInMsecs = 0) {
    validateCacheParams(max, ttlInMsecs);
    this.first = null;
    this.items = /* @__PURE__ */ Object.create(null);
    this.last = null;
    this.size = 0;
    this.max = max;
    this.ttl = ttlInMsecs;
  }
  bumpLru(item) {
    if (this.last === item) {
      return;
    }
    const last = this.last;
    const next = item.next;
    const prev = item.prev;
    if (this.first === item) {
      this.first = next;
    }
    item.next = null;
    item.prev = last;
    last.next = item;
    if (prev !== null) {
      prev.next = next;
    }
    if (next !== null) {
      next.prev = prev;
    }
    this.last = item;
  }
  clear() {
    this.items = /* @__PURE__ */ Object.create(null);
    this.first = null;
    this.last = null;
    this.size = 0;
  }
  delete(key) {
    const item = this.items[key];
    if (item !== void 0) {
      delete this.items[key];
      this.size--;
      if (item.prev !== null) {
        item.prev.next = item.next;
      }
      if (item.next !== null) {
        item.next.prev = item.prev;
      }
      if (this.first === item) {
        this.first = item.next;
      }
      if (this.last === item) {
        this.last = item.prev;
      }
    }
  }
  deleteMany(keys) {
    for (var i = 0; i < keys.length; i++) {
      this.delete(keys[i]);
    }
  }
  evict() {
    if (this.size > 0) {
      const item = this.first;
      delete this.items[item.key];
      if (--this.size === 0) {
        this.first = null;
        this.last = null;
      } else {
        this.first = item.next;
        this.first.prev = null;
      }
    }
  }
  expiresAt(key) {
    const item = this.items[key];
    if (item !== void 0) {
      return item.expiry;
    }
  }
  get(key) {
    const item = this.items[key];
    if (item !== void 0) {
      if (this.ttl > 0 && item.expiry <= Date.now()) {
        this.delete(key);
        return;
      }
      this.bumpLru(item);
      return item.value;
    }
  }
  getMany(keys) {
    const result = new Array(keys.length);
    for (var i = 0; i < keys.length; i++) {
      result[i] = this.get(keys[i]);
    }
    return result;
  }
  keys() {
    return Object.keys(this.items);
  }
  set(key, value2) {
    const existing = this.items[key];
    if (existing !== void 0) {
      existing.value = value2;
      existing.expiry = this.ttl > 0 ? Date.now() + this.ttl : this.ttl;
      this.bumpLru(existing);
      return;
    }
    if (this.max > 0 && this.size >= this.max) {
      this.evict();
    }
    const item = {
      expiry: this.ttl > 0 ? Date.now() + this.ttl : this.ttl,
      key,
      prev: this.last,
      next: null,
      value: value2
    };
    this.items[key] = item;
    if (++this.size === 1) {
      this.first = item;
    } else {
      this.last.next = item;
    }
    this.last = item;
  }
};

// node_modules/@octokit/auth-app/dist-node/index.js
async function getAppAuthentication({
  appId,
  privateKey,
  timeDifference,
  createJwt
}) {
  try {
    if (createJwt) {
      const { jwt, expiresAt } = await createJwt(appId, timeDifference);
      return {
        type: "app",
        token: jwt,
        appId,
        expiresAt
      };
    }
    const authOptions = {
      id: appId,
      privateKey
    };
    if (timeDifference) {
      Object.assign(authOptions, {
        now: Math.floor(Date.now() / 1e3) + timeDifference
      });
    }
    const appAuthentication = await githubAppJwt(authOptions);
    return {
      type: "app",
      token: appAuthentication.token,
      appId: appAuthentication.appId,
      expiresAt: new Date(appAuthentication.expiration * 1e3).toISOString()
    };
  } catch (error) {
    if (privateKey === "-----BEGIN RSA PRIVATE KEY-----") {
      throw new Error(
        "The 'privateKey` option contains only the first line '-----BEGIN RSA PRIVATE KEY-----'. If you are setting it using a `.env` file, make sure it is set on a single line with newlines replaced by '\n'"
      );
    } else {
      throw error;
    }
  }
}
function getCache() {
  return new LruObject(
    // cache max. 15000 tokens, that will use less than 10mb memory
    15e3,
    // Cache for 1 minute less than GitHub expiry
    1e3 * 60 * 59
  );
}
async function get(cache, options2) {
  const cacheKey = optionsToCacheKey(options2);
  const result = await cache.get(cacheKey);
  if (!result) {
    return;
  }
  const [
    token,
    createdAt,
    expiresAt,
    repositorySelection,
    permissionsString,
    singleFileName
  ] = result.split("|");
  const permissions = options2.permissions || permissionsString.split(/,/).reduce((permissions2, string) => {
    if (/!$/.test(string)) {
      permissions2[string.slice(0, -1)] = "write";
    } else {
      permissions2[string] = "read";
    }
    return permissions2;
  }, {});
  return {
    token,
    createdAt,
    expiresAt,
    permissions,
    repositoryIds: options2.repositoryIds,
    repositoryNames: options2.repositoryNames,
    singleFileName,
    repositorySelection
  };
}
async function set(cache, options2, data) {
  const key = optionsToCacheKey(options2);
  const permissionsString = options2.permissions ? "" : Object.keys(data.permissions).map(
    (name) => `${name}${data.permissions[name] === "write" ? "!" : ""}`
  ).join(",");
  const value2 = [
    data.token,
    data.createdAt,
    data.expiresAt,
    data.repositorySelection,
    permissionsString,
    data.singleFileName
  ].join("|");
  await cache.set(key, value2);
}
function optionsToCacheKey({
  installationId,
  permissions = {},
  repositoryIds = [],
  repositoryNames = []
}) {
  const permissionsString = Object.keys(permissions).sort().map((name) => permissions[name] === "read" ? name : `${name}!`).join(",");
  const repositoryIdsString = repositoryIds.sort().join(",");
  const repositoryNamesString = repositoryNames.join(",");
  return [
    installationId,
    repositoryIdsString,
    repositoryNamesString,
    permissionsString
  ].filter(Boolean).join("|");
}
function toTokenAuthentication({
  installationId,
  token,
  createdAt,
  expiresAt,
  repositorySelection,
  permissions,
  repositoryIds,
  repositoryNames,
  singleFileName
}) {
  return Object.assign(
    {
      type: "token",
      tokenType: "installation",
      token,
      installationId,
      permissions,
      createdAt,
      expiresAt,
      repositorySelection
    },
    repositoryIds ? { repositoryIds } : null,
    repositoryNames ? { repositoryNames } : null,
    singleFileName ? { singleFileName } : null
  );
}
async function getInstallationAuthentication(state, options2, customRequest) {
  const installationId = Number(options2.installationId || state.installationId);
  if (!installationId) {
    throw new Error(
      "[@octokit/auth-app] installationId option is required for installation authentication."
    );
  }
  if (options2.factory) {
    const { type, factory, oauthApp, ...factoryAuthOptions } = {
      ...state,
      ...options2
    };
    return factory(factoryAuthOptions);
  }
  const request2 = customRequest || state.request;
  return getInstallationAuthenticationConcurrently(
    state,
    { ...options2, installationId },
    request2
  );
}
var pendingPromises = /* @__PURE__ */ new Map();
function getInstallationAuthenticationConcurrently(state, options2, request2) {
  const cacheKey = optionsToCacheKey(options2);
  if (pendingPromises.has(cacheKey)) {
    return pendingPromises.get(cacheKey);
  }
  const promise = getInstallationAuthenticationImpl(
    state,
    options2,
    request2
  ).finally(() => pendingPromises.delete(cacheKey));
  pendingPromises.set(cacheKey, promise);
  return promise;
}
async function getInstallationAuthenticationImpl(state, options2, request2) {
  if (!options2.refresh) {
    const result = await get(state.cache, options2);
    if (result) {
      const {
        token: token2,
        createdAt: createdAt2,
        expiresAt: expiresAt2,
        permissions: permissions2,
        repositoryIds: repositoryIds2,
        repositoryNames: repositoryNames2,
        singleFileName: singleFileName2,
        repositorySelection: repositorySelection2
      } = result;
      return toTokenAuthentication({
        installationId: options2.installationId,
        token: token2,
        createdAt: createdAt2,
        expiresAt: expiresAt2,
        permissions: permissions2,
        repositorySelection: repositorySelection2,
        repositoryIds: repositoryIds2,
        repositoryNames: repositoryNames2,
        singleFileName: singleFileName2
      });
    }
  }
  const appAuthentication = await getAppAuthentication(state);
  const payload = {
    installation_id: options2.installationId,
    mediaType: {
      previews: ["machine-man"]
    },
    headers: {
      authorization: `bearer ${appAuthentication.token}`
    }
  };
  if (options2.repositoryIds) {
    Object.assign(payload, { repository_ids: options2.repositoryIds });
  }
  if (options2.repositoryNames) {
    Object.assign(payload, {
      repositories: options2.repositoryNames
    });
  }
  if (options2.permissions) {
    Object.assign(payload, { permissions: options2.permissions });
  }
  const {
    data: {
      token,
      expires_at: expiresAt,
      repositories,
      permissions: permissionsOptional,
      repository_selection: repositorySelectionOptional,
      single_file: singleFileName
    }
  } = await request2(
    "POST /app/installations/{installation_id}/access_tokens",
    payload
  );
  const permissions = permissionsOptional || {};
  const repositorySelection = repositorySelectionOptional || "all";
  const repositoryIds = repositories ? repositories.map((r) => r.id) : void 0;
  const repositoryNames = repositories ? repositories.map((repo) => repo.name) : void 0;
  const createdAt = (/* @__PURE__ */ new Date()).toISOString();
  const cacheOptions = {
    token,
    createdAt,
    expiresAt,
    repositorySelection,
    permissions,
    repositoryIds,
    repositoryNames
  };
  if (singleFileName) {
    Object.assign(payload, { singleFileName });
  }
  await set(state.cache, options2, cacheOptions);
  const cacheData = {
    installationId: options2.installationId,
    token,
    createdAt,
    expiresAt,
    repositorySelection,
    permissions,
    repositoryIds,
    repositoryNames
  };
  if (singleFileName) {
    Object.assign(cacheData, { singleFileName });
  }
  return toTokenAuthentication(cacheData);
}
async function auth4(state, authOptions) {
  switch (authOptions.type) {
    case "app":
      return getAppAuthentication(state);
    case "oauth-app":
      return state.oauthApp({ type: "oauth-app" });
    case "installation":
      authOptions;
      return getInstallationAuthentication(state, {
        ...authOptions,
        type: "installation"
      });
    case "oauth-user":
      return state.oauthApp(authOptions);
    default:
      throw new Error(`Invalid auth type: ${authOptions.type}`);
  }
}
var PATHS = [
  "/app",
  "/app/hook/config",
  "/app/hook/deliveries",
  "/app/hook/deliveries/{delivery_id}",
  "/app/hook/deliveries/{delivery_id}/attempts",
  "/app/installations",
  "/app/installations/{installation_id}",
  "/app/installations/{installation_id}/access_tokens",
  "/app/installations/{installation_id}/suspended",
  "/app/installation-requests",
  "/marketplace_listing/accounts/{account_id}",
  "/marketplace_listing/plan",
  "/marketplace_listing/plans",
  "/marketplace_listing/plans/{plan_id}/accounts",
  "/marketplace_listing/stubbed/accounts/{account_id}",
  "/marketplace_listing/stubbed/plan",
  "/marketplace_listing/stubbed/plans",
  "/marketplace_listing/stubbed/plans/{plan_id}/accounts",
  "/orgs/{org}/installation",
  "/repos/{owner}/{repo}/installation",
  "/users/{username}/installation",
  "/enterprises/{enterprise}/installation"
];
function routeMatcher(paths) {
  const regexes = paths.map(
    (p) => p.split("/").map((c) => c.startsWith("{") ? "(?:.+?)" : c).join("/")
  );
  const regex = `^(?:${regexes.map((r) => `(?:${r})`).join("|")})$`;
  return new RegExp(regex, "i");
}
var REGEX = routeMatcher(PATHS);
function requiresAppAuth(url) {
  return !!url && REGEX.test(url.split("?")[0]);
}
var FIVE_SECONDS_IN_MS = 5 * 1e3;
function isNotTimeSkewError(error) {
  return !(error.message.match(
    /'Expiration time' claim \('exp'\) is too far in the future/
  ) || error.message.match(
    /'Expiration time' claim \('exp'\) must be a numeric value representing the future time at which the assertion expires/
  ) || error.message.match(
    /'Issued at' claim \('iat'\) must be an Integer representing the time that the assertion was issued/
  ));
}
async function hook4(state, request2, route, parameters) {
  const endpoint = request2.endpoint.merge(route, parameters);
  const url = endpoint.url;
  if (/\/login\/oauth\/access_token$/.test(url)) {
    return request2(endpoint);
  }
  if (requiresAppAuth(url.replace(request2.endpoint.DEFAULTS.baseUrl, ""))) {
    const { token: token2 } = await getAppAuthentication(state);
    endpoint.headers.authorization = `bearer ${token2}`;
    let response;
    try {
      response = await request2(endpoint);
    } catch (error) {
      if (isNotTimeSkewError(error)) {
        throw error;
      }
      if (typeof error.response.headers.date === "undefined") {
        throw error;
      }
      const diff = Math.floor(
        (Date.parse(error.response.headers.date) - Date.parse((/* @__PURE__ */ new Date()).toString())) / 1e3
      );
      state.log.warn(error.message);
      state.log.warn(
        `[@octokit/auth-app] GitHub API time and system time are different by ${diff} seconds. Retrying request with the difference accounted for.`
      );
      const { token: token3 } = await getAppAuthentication({
        ...state,
        timeDifference: diff
      });
      endpoint.headers.authorization = `bearer ${token3}`;
      return request2(endpoint);
    }
    return response;
  }
  if (requiresBasicAuth(url)) {
    const authentication = await state.oauthApp({ type: "oauth-app" });
    endpoint.headers.authorization = authentication.headers.authorization;
    return request2(endpoint);
  }
  const { token, createdAt } = await getInstallationAuthentication(
    state,
    // @ts-expect-error TBD
    {},
    request2.defaults({ baseUrl: endpoint.baseUrl })
  );
  endpoint.headers.authorization = `token ${token}`;
  return sendRequestWithRetries(
    state,
    request2,
    endpoint,
    createdAt
  );
}
async function sendRequestWithRetries(state, request2, options2, createdAt, retries = 0) {
  const timeSinceTokenCreationInMs = +/* @__PURE__ */ new Date() - +new Date(createdAt);
  try {
    return await request2(options2);
  } catch (error) {
    if (error.status !== 401) {
      throw error;
    }
    if (timeSinceTokenCreationInMs >= FIVE_SECONDS_IN_MS) {
      if (retries > 0) {
        error.message = `After ${retries} retries within ${timeSinceTokenCreationInMs / 1e3}s of creating the installation access token, the response remains 401. At this point, the cause may be an authentication problem or a system outage. Please check https://www.githubstatus.com for status information`;
      }
      throw error;
    }
    ++retries;
    const awaitTime = retries * 1e3;
    state.log.warn(
      `[@octokit/auth-app] Retrying after 401 response to account for token replication delay (retry: ${retries}, wait: ${awaitTime / 1e3}s)`
    );
    await new Promise((resolve2) => setTimeout(resolve2, awaitTime));
    return sendRequestWithRetries(state, request2, options2, createdAt, retries);
  }
}
var VERSION4 = "8.3.1";
function createAppAuth(options2) {
  if (!options2.appId) {
    throw new Error("[@octokit/auth-app] appId option is required");
  }
  if (!options2.privateKey && !options2.createJwt) {
    throw new Error("[@octokit/auth-app] privateKey option is required");
  } else if (options2.privateKey && options2.createJwt) {
    throw new Error(
      "[@octokit/auth-app] privateKey and createJwt options are mutually exclusive"
    );
  }
  if ("installationId" in options2 && !options2.installationId) {
    throw new Error(
      "[@octokit/auth-app] installationId is set to a falsy value"
    );
  }
  const log = options2.log || {};
  if (typeof log.warn !== "function") {
    log.warn = console.warn.bind(console);
  }
  const request2 = options2.request || request.defaults({
    headers: {
      "user-agent": `octokit-auth-app.js/${VERSION4} ${getUserAgent()}`
    }
  });
  const state = Object.assign(
    {
      request: request2,
      cache: getCache()
    },
    options2,
    options2.installationId ? { installationId: Number(options2.installationId) } : {},
    {
      log,
      oauthApp: createOAuthAppAuth({
        clientType: "github-app",
        clientId: options2.clientId || "",
        clientSecret: options2.clientSecret || "",
        request: request2
      })
    }
  );
  return Object.assign(auth4.bind(null, state), {
    hook: hook4.bind(null, state)
  });
}

// node_modules/@octokit/auth-unauthenticated/dist-node/index.js
async function auth5(reason) {
  return {
    type: "unauthenticated",
    reason
  };
}
function isRateLimitError(error) {
  if (error.status !== 403) {
    return false;
  }
  if (!error.response) {
    return false;
  }
  return error.response.headers["x-ratelimit-remaining"] === "0";
}
var REGEX_ABUSE_LIMIT_MESSAGE = /\babuse\b/i;
function isAbuseLimitError(error) {
  if (error.status !== 403) {
    return false;
  }
  return REGEX_ABUSE_LIMIT_MESSAGE.test(error.message);
}
async function hook5(reason, request2, route, parameters) {
  const endpoint = request2.endpoint.merge(
    route,
    parameters
  );
  return request2(endpoint).catch((error) => {
    if (error.status === 404) {
      error.message = `Not found. May be due to lack of authentication. Reason: ${reason}`;
      throw error;
    }
    if (isRateLimitError(error)) {
      error.message = `API rate limit exceeded. This maybe caused by the lack of authentication. Reason: ${reason}`;
      throw error;
    }
    if (isAbuseLimitError(error)) {
      error.message = `You have triggered an abuse detection mechanism. This maybe caused by the lack of authentication. Reason: ${reason}`;
      throw error;
    }
    if (error.status === 401) {
      error.message = `Unauthorized. "${endpoint.method} ${endpoint.url}" failed most likely due to lack of authentication. Reason: ${reason}`;
      throw error;
    }
    if (error.status >= 400 && error.status < 500) {
      error.message = error.message.replace(
        /\.?$/,
        `. May be caused by lack of authentication (${reason}).`
      );
    }
    throw error;
  });
}
var createUnauthenticatedAuth = function createUnauthenticatedAuth2(options2) {
  if (!options2 || !options2.reason) {
    throw new Error(
      "[@octokit/auth-unauthenticated] No reason passed to createUnauthenticatedAuth"
    );
  }
  return Object.assign(auth5.bind(null, options2.reason), {
    hook: hook5.bind(null, options2.reason)
  });
};

// node_modules/@octokit/oauth-app/dist-node/index.js
var VERSION5 = "8.0.4";
function addEventHandler(state, eventName, eventHandler) {
  if (Array.isArray(eventName)) {
    for (const singleEventName of eventName) {
      addEventHandler(state, singleEventName, eventHandler);
    }
    return;
  }
  if (!state.eventHandlers[eventName]) {
    state.eventHandlers[eventName] = [];
  }
  state.eventHandlers[eventName].push(eventHandler);
}
var OAuthAppOctokit = Octokit.defaults({
  userAgent: `octokit-oauth-app.js/${VERSION5} ${getUserAgent()}`
});
async function emitEvent(state, context) {
  const { name, action } = context;
  if (state.eventHandlers[`${name}.${action}`]) {
    for (const eventHandler of state.eventHandlers[`${name}.${action}`]) {
      await eventHandler(context);
    }
  }
  if (state.eventHandlers[name]) {
    for (const eventHandler of state.eventHandlers[name]) {
      await eventHandler(context);
    }
  }
}
async function getUserOctokitWithState(state, options2) {
  return state.octokit.auth({
    type: "oauth-user",
    ...options2,
    async factory(options22) {
      const octokit = new state.Octokit({
        authStrategy: createOAuthUserAuth,
        auth: options22
      });
      const authentication = await octokit.auth({
        type: "get"
      });
      await emitEvent(state, {
        name: "token",
        action: "created",
        token: authentication.token,
        scopes: authentication.scopes,
        authentication,
        octokit
      });
      return octokit;
    }
  });
}
function getWebFlowAuthorizationUrlWithState(state, options2) {
  const optionsWithDefaults = {
    clientId: state.clientId,
    request: state.octokit.request,
    ...options2,
    allowSignup: state.allowSignup ?? options2.allowSignup,
    redirectUrl: options2.redirectUrl ?? state.redirectUrl,
    scopes: options2.scopes ?? state.defaultScopes
  };
  return getWebFlowAuthorizationUrl({
    clientType: state.clientType,
    ...optionsWithDefaults
  });
}
async function createTokenWithState(state, options2) {
  const authentication = await state.octokit.auth({
    type: "oauth-user",
    ...options2
  });
  await emitEvent(state, {
    name: "token",
    action: "created",
    token: authentication.token,
    scopes: authentication.scopes,
    authentication,
    octokit: new state.Octokit({
      authStrategy: createOAuthUserAuth,
      auth: {
        clientType: state.clientType,
        clientId: state.clientId,
        clientSecret: state.clientSecret,
        token: authentication.token,
        scopes: authentication.scopes,
        refreshToken: authentication.refreshToken,
        expiresAt: authentication.expiresAt,
        refreshTokenExpiresAt: authentication.refreshTokenExpiresAt
      }
    })
  });
  return { authentication };
}
async function checkTokenWithState(state, options2) {
  const result = await checkToken({
    // @ts-expect-error not worth the extra code to appease TS
    clientType: state.clientType,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    request: state.octokit.request,
    ...options2
  });
  Object.assign(result.authentication, { type: "token", tokenType: "oauth" });
  return result;
}
async function resetTokenWithState(state, options2) {
  const optionsWithDefaults = {
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    request: state.octokit.request,
    ...options2
  };
  if (state.clientType === "oauth-app") {
    const response2 = await resetToken({
      clientType: "oauth-app",
      ...optionsWithDefaults
    });
    const authentication2 = Object.assign(response2.authentication, {
      type: "token",
      tokenType: "oauth"
    });
    await emitEvent(state, {
      name: "token",
      action: "reset",
      token: response2.authentication.token,
      scopes: response2.authentication.scopes || void 0,
      authentication: authentication2,
      octokit: new state.Octokit({
        authStrategy: createOAuthUserAuth,
        auth: {
          clientType: state.clientType,
          clientId: state.clientId,
          clientSecret: state.clientSecret,
          token: response2.authentication.token,
          scopes: response2.authentication.scopes
        }
      })
    });
    return { ...response2, authentication: authentication2 };
  }
  const response = await resetToken({
    clientType: "github-app",
    ...optionsWithDefaults
  });
  const authentication = Object.assign(response.authentication, {
    type: "token",
    tokenType: "oauth"
  });
  await emitEvent(state, {
    name: "token",
    action: "reset",
    token: response.authentication.token,
    authentication,
    octokit: new state.Octokit({
      authStrategy: createOAuthUserAuth,
      auth: {
        clientType: state.clientType,
        clientId: state.clientId,
        clientSecret: state.clientSecret,
        token: response.authentication.token
      }
    })
  });
  return { ...response, authentication };
}
async function refreshTokenWithState(state, options2) {
  if (state.clientType === "oauth-app") {
    throw new Error(
      "[@octokit/oauth-app] app.refreshToken() is not supported for OAuth Apps"
    );
  }
  const response = await refreshToken({
    clientType: "github-app",
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    request: state.octokit.request,
    refreshToken: options2.refreshToken
  });
  const authentication = Object.assign(response.authentication, {
    type: "token",
    tokenType: "oauth"
  });
  await emitEvent(state, {
    name: "token",
    action: "refreshed",
    token: response.authentication.token,
    authentication,
    octokit: new state.Octokit({
      authStrategy: createOAuthUserAuth,
      auth: {
        clientType: state.clientType,
        clientId: state.clientId,
        clientSecret: state.clientSecret,
        token: response.authentication.token
      }
    })
  });
  return { ...response, authentication };
}
async function scopeTokenWithState(state, options2) {
  if (state.clientType === "oauth-app") {
    throw new Error(
      "[@octokit/oauth-app] app.scopeToken() is not supported for OAuth Apps"
    );
  }
  const response = await scopeToken({
    clientType: "github-app",
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    request: state.octokit.request,
    ...options2
  });
  const authentication = Object.assign(response.authentication, {
    type: "token",
    tokenType: "oauth"
  });
  await emitEvent(state, {
    name: "token",
    action: "scoped",
    token: response.authentication.token,
    authentication,
    octokit: new state.Octokit({
      authStrategy: createOAuthUserAuth,
      auth: {
        clientType: state.clientType,
        clientId: state.clientId,
        clientSecret: state.clientSecret,
        token: response.authentication.token
      }
    })
  });
  return { ...response, authentication };
}
async function deleteTokenWithState(state, options2) {
  const optionsWithDefaults = {
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    request: state.octokit.request,
    ...options2
  };
  const response = state.clientType === "oauth-app" ? await deleteToken({
    clientType: "oauth-app",
    ...optionsWithDefaults
  }) : (
    /* v8 ignore next 4 */
    await deleteToken({
      clientType: "github-app",
      ...optionsWithDefaults
    })
  );
  await emitEvent(state, {
    name: "token",
    action: "deleted",
    token: options2.token,
    octokit: new state.Octokit({
      authStrategy: createUnauthenticatedAuth,
      auth: {
        reason: `Handling "token.deleted" event. The access for the token has been revoked.`
      }
    })
  });
  return response;
}
async function deleteAuthorizationWithState(state, options2) {
  const optionsWithDefaults = {
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    request: state.octokit.request,
    ...options2
  };
  const response = state.clientType === "oauth-app" ? await deleteAuthorization({
    clientType: "oauth-app",
    ...optionsWithDefaults
  }) : (
    /* v8 ignore next 4 */
    await deleteAuthorization({
      clientType: "github-app",
      ...optionsWithDefaults
    })
  );
  await emitEvent(state, {
    name: "token",
    action: "deleted",
    token: options2.token,
    octokit: new state.Octokit({
      authStrategy: createUnauthenticatedAuth,
      auth: {
        reason: `Handling "token.deleted" event. The access for the token has been revoked.`
      }
    })
  });
  await emitEvent(state, {
    name: "authorization",
    action: "deleted",
    token: options2.token,
    octokit: new state.Octokit({
      authStrategy: createUnauthenticatedAuth,
      auth: {
        reason: `Handling "authorization.deleted" event. The access for the app has been revoked.`
      }
    })
  });
  return response;
}
var OAuthApp = class {
  static VERSION = VERSION5;
  static defaults(defaults) {
    const OAuthAppWithDefaults = class extends this {
      constructor(...args) {
        super({
          ...defaults,
          ...args[0]
        });
      }
    };
    return OAuthAppWithDefaults;
  }
  constructor(options2) {
    const Octokit2 = options2.Octokit || OAuthAppOctokit;
    this.type = options2.clientType || "oauth-app";
    const octokit = new Octokit2({
      authStrategy: createOAuthAppAuth,
      auth: {
        clientType: this.type,
        clientId: options2.clientId,
        clientSecret: options2.clientSecret
      }
    });
    const state = {
      clientType: this.type,
      clientId: options2.clientId,
      clientSecret: options2.clientSecret,
      // @ts-expect-error defaultScopes not permitted for GitHub Apps
      defaultScopes: options2.defaultScopes || [],
      allowSignup: options2.allowSignup,
      baseUrl: options2.baseUrl,
      redirectUrl: options2.redirectUrl,
      log: options2.log,
      Octokit: Octokit2,
      octokit,
      eventHandlers: {}
    };
    this.on = addEventHandler.bind(null, state);
    this.octokit = octokit;
    this.getUserOctokit = getUserOctokitWithState.bind(
      null,
      state
    );
    this.getWebFlowAuthorizationUrl = getWebFlowAuthorizationUrlWithState.bind(
      null,
      state
    );
    this.createToken = createTokenWithState.bind(
      null,
      state
    );
    this.checkToken = checkTokenWithState.bind(
      null,
      state
    );
    this.resetToken = resetTokenWithState.bind(
      null,
      state
    );
    this.refreshToken = refreshTokenWithState.bind(
      null,
      state
    );
    this.scopeToken = scopeTokenWithState.bind(
      null,
      state
    );
    this.deleteToken = deleteTokenWithState.bind(null, state);
    this.deleteAuthorization = deleteAuthorizationWithState.bind(null, state);
  }
  // assigned during constructor
  type;
  on;
  octokit;
  getUserOctokit;
  getWebFlowAuthorizationUrl;
  createToken;
  checkToken;
  resetToken;
  refreshToken;
  scopeToken;
  deleteToken;
  deleteAuthorization;
};

// node_modules/@octokit/webhooks-methods/dist-node/index.js
import { createHmac } from "node:crypto";
import { timingSafeEqual } from "node:crypto";
import { Buffer as Buffer2 } from "node:buffer";
var VERSION6 = "6.0.0";
async function sign(secret, payload) {
  if (!secret || !payload) {
    throw new TypeError(
      "[@octokit/webhooks-methods] secret & payload required for sign()"
    );
  }
  if (typeof payload !== "string") {
    throw new TypeError("[@octokit/webhooks-methods] payload must be a string");
  }
  const algorithm = "sha256";
  return `${algorithm}=${createHmac(algorithm, secret).update(payload).digest("hex")}`;
}
sign.VERSION = VERSION6;
async function verify(secret, eventPayload, signature) {
  if (!secret || !eventPayload || !signature) {
    throw new TypeError(
      "[@octokit/webhooks-methods] secret, eventPayload & signature required"
    );
  }
  if (typeof eventPayload !== "string") {
    throw new TypeError(
      "[@octokit/webhooks-methods] eventPayload must be a string"
    );
  }
  const signatureBuffer = Buffer2.from(signature);
  const verificationBuffer = Buffer2.from(await sign(secret, eventPayload));
  if (signatureBuffer.length !== verificationBuffer.length) {
    return false;
  }
  return timingSafeEqual(signatureBuffer, verificationBuffer);
}
verify.VERSION = VERSION6;
async function verifyWithFallback(secret, payload, signature, additionalSecrets) {
  const firstPass = await verify(secret, payload, signature);
  if (firstPass) {
    return true;
  }
  if (additionalSecrets !== void 0) {
    for (const s of additionalSecrets) {
      const v = await verify(s, payload, signature);
      if (v) {
        return v;
      }
    }
  }
  return false;
}

// node_modules/@octokit/webhooks/dist-bundle/index.js
var createLogger = (logger = {}) => {
  if (typeof logger.debug !== "function") {
    logger.debug = () => {
    };
  }
  if (typeof logger.info !== "function") {
    logger.info = () => {
    };
  }
  if (typeof logger.warn !== "function") {
    logger.warn = console.warn.bind(console);
  }
  if (typeof logger.error !== "function") {
    logger.error = console.error.bind(console);
  }
  return logger;
};
var emitterEventNames = [
  "branch_protection_configuration",
  "branch_protection_configuration.disabled",
  "branch_protection_configuration.enabled",
  "branch_protection_rule",
  "branch_protection_rule.created",
  "branch_protection_rule.deleted",
  "branch_protection_rule.edited",
  "check_run",
  "check_run.completed",
  "check_run.created",
  "check_run.requested_action",
  "check_run.rerequested",
  "check_suite",
  "check_suite.completed",
  "check_suite.requested",
  "check_suite.rerequested",
  "code_scanning_alert",
  "code_scanning_alert.appeared_in_branch",
  "code_scanning_alert.closed_by_user",
  "code_scanning_alert.created",
  "code_scanning_alert.fixed",
  "code_scanning_alert.reopened",
  "code_scanning_alert.reopened_by_user",
  "commit_comment",
  "commit_comment.created",
  "create",
  "custom_property",
  "custom_property.created",
  "custom_property.deleted",
  "custom_property.promote_to_enterprise",
  "custom_property.updated",
  "custom_property_values",
  "custom_property_values.updated",
  "delete",
  "dependabot_alert",
  "dependabot_alert.auto_dismissed",
  "dependabot_alert.auto_reopened",
  "dependabot_alert.created",
  "dependabot_alert.dismissed",
  "dependabot_alert.fixed",
  "dependabot_alert.reintroduced",
  "dependabot_alert.reopened",
  "deploy_key",
  "deploy_key.created",
  "deploy_key.deleted",
  "deployment",
  "deployment.created",
  "deployment_protection_rule",
  "deployment_protection_rule.requested",
  "deployment_review",
  "deployment_review.approved",
  "deployment_review.rejected",
  "deployment_review.requested",
  "deployment_status",
  "deployment_status.created",
  "discussion",
  "discussion.answered",
  "discussion.category_changed",
  "discussion.closed",
  "discussion.created",
  "discussion.deleted",
  "discussion.edited",
  "discussion.labeled",
  "discussion.locked",
  "discussion.pinned",
  "discussion.reopened",
  "discussion.transferred",
  "discussion.unanswered",
  "discussion.unlabeled",
  "discussion.unlocked",
  "discussion.unpinned",
  "discussion_comment",
  "discussion_comment.created",
  "discussion_comment.deleted",
  "discussion_comment.edited",
  "fork",
  "github_app_authorization",
  "github_app_authorization.revoked",
  "gollum",
  "installation",
  "installation.created",
  "installation.deleted",
  "installation.new_permissions_accepted",
  "installation.suspend",
  "installation.unsuspend",
  "installation_repositories",
  "installation_repositories.added",
  "installation_repositories.removed",
  "installation_target",
  "installation_target.renamed",
  "issue_comment",
  "issue_comment.created",
  "issue_comment.deleted",
  "issue_comment.edited",
  "issue_dependencies",
  "issue_dependencies.blocked_by_added",
  "issue_dependencies.blocked_by_removed",
  "issue_dependencies.blocking_added",
  "issue_dependencies.blocking_removed",
  "issues",
  "issues.assigned",
  "issues.closed",
  "issues.deleted",
  "issues.demilestoned",
  "issues.edited",
  "issues.labeled",
  "issues.locked",
  "issues.milestoned",
  "issues.opened",
  "issues.pinned",
  "issues.reopened",
  "issues.transferred",
  "issues.typed",
  "issues.unassigned",
  "issues.unlabeled",
  "issues.unlocked",
  "issues.unpinned",
  "issues.untyped",
  "label",
  "label.created",
  "label.deleted",
  "label.edited",
  "marketplace_purchase",
  "marketplace_purchase.cancelled",
  "marketplace_purchase.changed",
  "marketplace_purchase.pending_change",
  "marketplace_purchase.pending_change_cancelled",
  "marketplace_purchase.purchased",
  "member",
  "member.added",
  "member.edited",
  "member.removed",
  "membership",
  "membership.added",
  "membership.removed",
  "merge_group",
  "merge_group.checks_requested",
  "merge_group.destroyed",
  "meta",
  "meta.deleted",
  "milestone",
  "milestone.closed",
  "milestone.created",
  "milestone.deleted",
  "milestone.edited",
  "milestone.opened",
  "org_block",
  "org_block.blocked",
  "org_block.unblocked",
  "organization",
  "organization.deleted",
  "organization.member_added",
  "organization.member_invited",
  "organization.member_removed",
  "organization.renamed",
  "package",
  "package.published",
  "package.updated",
  "page_build",
  "personal_access_token_request",
  "personal_access_token_request.approved",
  "personal_access_token_request.cancelled",
  "personal_access_token_request.created",
  "personal_access_token_request.denied",
  "ping",
  "project",
  "project.closed",
  "project.created",
  "project.deleted",
  "project.edited",
  "project.reopened",
  "project_card",
  "project_card.converted",
  "project_card.created",
  "project_card.deleted",
  "project_card.edited",
  "project_card.moved",
  "project_column",
  "project_column.created",
  "project_column.deleted",
  "project_column.edited",
  "project_column.moved",
  "projects_v2",
  "projects_v2.closed",
  "projects_v2.created",
  "projects_v2.deleted",
  "projects_v2.edited",
  "projects_v2.reopened",
  "projects_v2_item",
  "projects_v2_item.archived",
  "projects_v2_item.converted",
  "projects_v2_item.created",
  "projects_v2_item.deleted",
  "projects_v2_item.edited",
  "projects_v2_item.reordered",
  "projects_v2_item.restored",
  "projects_v2_status_update",
  "projects_v2_status_update.created",
  "projects_v2_status_update.deleted",
  "projects_v2_status_update.edited",
  "public",
  "pull_request",
  "pull_request.assigned",
  "pull_request.auto_merge_disabled",
  "pull_request.auto_merge_enabled",
  "pull_request.closed",
  "pull_request.converted_to_draft",
  "pull_request.demilestoned",
  "pull_request.dequeued",
  "pull_request.edited",
  "pull_request.enqueued",
  "pull_request.labeled",
  "pull_request.locked",
  "pull_request.milestoned",
  "pull_request.opened",
  "pull_request.ready_for_review",
  "pull_request.reopened",
  "pull_request.review_request_removed",
  "pull_request.review_requested",
  "pull_request.synchronize",
  "pull_request.unassigned",
  "pull_request.unlabeled",
  "pull_request.unlocked",
  "pull_request_review",
  "pull_request_review.dismissed",
  "pull_request_review.edited",
  "pull_request_review.submitted",
  "pull_request_review_comment",
  "pull_request_review_comment.created",
  "pull_request_review_comment.deleted",
  "pull_request_review_comment.edited",
  "pull_request_review_thread",
  "pull_request_review_thread.resolved",
  "pull_request_review_thread.unresolved",
  "push",
  "registry_package",
  "registry_package.published",
  "registry_package.updated",
  "release",
  "release.created",
  "release.deleted",
  "release.edited",
  "release.prereleased",
  "release.published",
  "release.released",
  "release.unpublished",
  "repository",
  "repository.archived",
  "repository.created",
  "repository.deleted",
  "repository.edited",
  "repository.privatized",
  "repository.publicized",
  "repository.renamed",
  "repository.transferred",
  "repository.unarchived",
  "repository_advisory",
  "repository_advisory.published",
  "repository_advisory.reported",
  "repository_dispatch",
  "repository_dispatch.sample.collected",
  "repository_import",
  "repository_ruleset",
  "repository_ruleset.created",
  "repository_ruleset.deleted",
  "repository_ruleset.edited",
  "repository_vulnerability_alert",
  "repository_vulnerability_alert.create",
  "repository_vulnerability_alert.dismiss",
  "repository_vulnerability_alert.reopen",
  "repository_vulnerability_alert.resolve",
  "secret_scanning_alert",
  "secret_scanning_alert.assigned",
  "secret_scanning_alert.created",
  "secret_scanning_alert.publicly_leaked",
  "secret_scanning_alert.reopened",
  "secret_scanning_alert.resolved",
  "secret_scanning_alert.unassigned",
  "secret_scanning_alert.validated",
  "secret_scanning_alert_location",
  "secret_scanning_alert_location.created",
  "secret_scanning_scan",
  "secret_scanning_scan.completed",
  "security_advisory",
  "security_advisory.published",
  "security_advisory.updated",
  "security_advisory.withdrawn",
  "security_and_analysis",
  "sponsorship",
  "sponsorship.cancelled",
  "sponsorship.created",
  "sponsorship.edited",
  "sponsorship.pending_cancellation",
  "sponsorship.pending_tier_change",
  "sponsorship.tier_changed",
  "star",
  "star.created",
  "star.deleted",
  "status",
  "sub_issues",
  "sub_issues.parent_issue_added",
  "sub_issues.parent_issue_removed",
  "sub_issues.sub_issue_added",
  "sub_issues.sub_issue_removed",
  "team",
  "team.added_to_repository",
  "team.created",
  "team.deleted",
  "team.edited",
  "team.removed_from_repository",
  "team_add",
  "watch",
  "watch.started",
  "workflow_dispatch",
  "workflow_job",
  "workflow_job.completed",
  "workflow_job.in_progress",
  "workflow_job.queued",
  "workflow_job.waiting",
  "workflow_run",
  "workflow_run.completed",
  "workflow_run.in_progress",
  "workflow_run.requested"
];
function validateEventName(eventName, options2 = {}) {
  if (typeof eventName !== "string") {
    throw new TypeError("eventName must be of type string");
  }
  if (eventName === "*") {
    throw new TypeError(
      `Using the "*" event with the regular Webhooks.on() function is not supported. Please use the Webhooks.onAny() method instead`
    );
  }
  if (eventName === "error") {
    throw new TypeError(
      `Using the "error" event with the regular Webhooks.on() function is not supported. Please use the Webhooks.onError() method instead`
    );
  }
  if (options2.onUnknownEventName === "ignore") {
    return;
  }
  if (!emitterEventNames.includes(eventName)) {
    if (options2.onUnknownEventName !== "warn") {
      throw new TypeError(
        `"${eventName}" is not a known webhook name (https://developer.github.com/v3/activity/events/types/)`
      );
    } else {
      (options2.log || console).warn(
        `"${eventName}" is not a known webhook name (https://developer.github.com/v3/activity/events/types/)`
      );
    }
  }
}
function handleEventHandlers(state, webhookName, handler) {
  if (!state.hooks[webhookName]) {
    state.hooks[webhookName] = [];
  }
  state.hooks[webhookName].push(handler);
}
function receiverOn(state, webhookNameOrNames, handler) {
  if (Array.isArray(webhookNameOrNames)) {
    webhookNameOrNames.forEach(
      (webhookName) => receiverOn(state, webhookName, handler)
    );
    return;
  }
  validateEventName(webhookNameOrNames, {
    onUnknownEventName: "warn",
    log: state.log
  });
  handleEventHandlers(state, webhookNameOrNames, handler);
}
function receiverOnAny(state, handler) {
  handleEventHandlers(state, "*", handler);
}
function receiverOnError(state, handler) {
  handleEventHandlers(state, "error", handler);
}
function wrapErrorHandler(handler, error) {
  let returnValue;
  try {
    returnValue = handler(error);
  } catch (error2) {
    console.log('FATAL: Error occurred in "error" event handler');
    console.log(error2);
  }
  if (returnValue && returnValue.catch) {
    returnValue.catch((error2) => {
      console.log('FATAL: Error occurred in "error" event handler');
      console.log(error2);
    });
  }
}
function getHooks(state, eventPayloadAction, eventName) {
  const hooks = [state.hooks[eventName], state.hooks["*"]];
  if (eventPayloadAction) {
    hooks.unshift(state.hooks[`${eventName}.${eventPayloadAction}`]);
  }
  return [].concat(...hooks.filter(Boolean));
}
function receiverHandle(state, event) {
  const errorHandlers = state.hooks.error || [];
  if (event instanceof Error) {
    const error = Object.assign(new AggregateError([event], event.message), {
      event
    });
    errorHandlers.forEach((handler) => wrapErrorHandler(handler, error));
    return Promise.reject(error);
  }
  if (!event || !event.name) {
    const error = new Error("Event name not passed");
    throw new AggregateError([error], error.message);
  }
  if (!event.payload) {
    const error = new Error("Event name not passed");
    throw new AggregateError([error], error.message);
  }
  const hooks = getHooks(
    state,
    "action" in event.payload ? event.payload.action : null,
    event.name
  );
  if (hooks.length === 0) {
    return Promise.resolve();
  }
  const errors = [];
  const promises = hooks.map((handler) => {
    let promise = Promise.resolve(event);
    if (state.transform) {
      promise = promise.then(state.transform);
    }
    return promise.then((event2) => {
      return handler(event2);
    }).catch((error) => errors.push(Object.assign(error, { event })));
  });
  return Promise.all(promises).then(() => {
    if (errors.length === 0) {
      return;
    }
    const error = new AggregateError(
      errors,
      errors.map((error2) => error2.message).join("\n")
    );
    Object.assign(error, {
      event
    });
    errorHandlers.forEach((handler) => wrapErrorHandler(handler, error));
    throw error;
  });
}
function removeListener(state, webhookNameOrNames, handler) {
  if (Array.isArray(webhookNameOrNames)) {
    webhookNameOrNames.forEach(
      (webhookName) => removeListener(state, webhookName, handler)
    );
    return;
  }
  if (!state.hooks[webhookNameOrNames]) {
    return;
  }
  for (let i = state.hooks[webhookNameOrNames].length - 1; i >= 0; i--) {
    if (state.hooks[webhookNameOrNames][i] === handler) {
      state.hooks[webhookNameOrNames].splice(i, 1);
      return;
    }
  }
}
function createEventHandler(options2) {
  const state = {
    hooks: {},
    log: createLogger(options2 && options2.log)
  };
  if (options2 && options2.transform) {
    state.transform = options2.transform;
  }
  return {
    on: receiverOn.bind(null, state),
    onAny: receiverOnAny.bind(null, state),
    onError: receiverOnError.bind(null, state),
    removeListener: removeListener.bind(null, state),
    receive: receiverHandle.bind(null, state)
  };
}
async function verifyAndReceive(state, event) {
  const matchesSignature = await verifyWithFallback(
    state.secret,
    event.payload,
    event.signature,
    state.additionalSecrets
  ).catch(() => false);
  if (!matchesSignature) {
    const error = new Error(
      "[@octokit/webhooks] signature does not match event payload and secret"
    );
    error.event = event;
    error.status = 400;
    return state.eventHandler.receive(error);
  }
  let payload;
  try {
    payload = JSON.parse(event.payload);
  } catch (error) {
    error.message = "Invalid JSON";
    error.status = 400;
    throw new AggregateError([error], error.message);
  }
  return state.eventHandler.receive({
    id: event.id,
    name: event.name,
    payload
  });
}
var textDecoder = new TextDecoder("utf-8", { fatal: false });
var decode = textDecoder.decode.bind(textDecoder);
var Webhooks = class {
  sign;
  verify;
  on;
  onAny;
  onError;
  removeListener;
  receive;
  verifyAndReceive;
  constructor(options2) {
    if (!options2 || !options2.secret) {
      throw new Error("[@octokit/webhooks] options.secret required");
    }
    const state = {
      eventHandler: createEventHandler(options2),
      secret: options2.secret,
      additionalSecrets: options2.additionalSecrets,
      hooks: {},
      log: createLogger(options2.log)
    };
    this.sign = sign.bind(null, options2.secret);
    this.verify = verify.bind(null, options2.secret);
    this.on = state.eventHandler.on;
    this.onAny = state.eventHandler.onAny;
    this.onError = state.eventHandler.onError;
    this.removeListener = state.eventHandler.removeListener;
    this.receive = state.eventHandler.receive;
    this.verifyAndReceive = verifyAndReceive.bind(null, state);
  }
};

// node_modules/@octokit/app/node_modules/@octokit/plugin-paginate-rest/dist-bundle/index.js
var VERSION7 = "0.0.0-development";
function normalizePaginatedListResponse(response) {
  if (!response.data) {
    return {
      ...response,
      data: []
    };
  }
  const responseNeedsNormalization = ("total_count" in response.data || "total_commits" in response.data) && !("url" in response.data);
  if (!responseNeedsNormalization) return response;
  const incompleteResults = response.data.incomplete_results;
  const repositorySelection = response.data.repository_selection;
  const totalCount = response.data.total_count;
  const totalCommits = response.data.total_commits;
  delete response.data.incomplete_results;
  delete response.data.repository_selection;
  delete response.data.total_count;
  delete response.data.total_commits;
  const namespaceKey = Object.keys(response.data)[0];
  const data = response.data[namespaceKey];
  response.data = data;
  if (typeof incompleteResults !== "undefined") {
    response.data.incomplete_results = incompleteResults;
  }
  if (typeof repositorySelection !== "undefined") {
    response.data.repository_selection = repositorySelection;
  }
  response.data.total_count = totalCount;
  response.data.total_commits = totalCommits;
  return response;
}
function iterator(octokit, route, parameters) {
  const options2 = typeof route === "function" ? route.endpoint(parameters) : octokit.request.endpoint(route, parameters);
  const requestMethod = typeof route === "function" ? route : octokit.request;
  const method = options2.method;
  const headers = options2.headers;
  let url = options2.url;
  return {
    [Symbol.asyncIterator]: () => ({
      async next() {
        if (!url) return { done: true };
        try {
          const response = await requestMethod({ method, url, headers });
          const normalizedResponse = normalizePaginatedListResponse(response);
          url = ((normalizedResponse.headers.link || "").match(
            /<([^<>]+)>;\s*rel="next"/
          ) || [])[1];
          if (!url && "total_commits" in normalizedResponse.data) {
            const parsedUrl = new URL(normalizedResponse.url);
            const params = parsedUrl.searchParams;
            const page = parseInt(params.get("page") || "1", 10);
            const per_page = parseInt(params.get("per_page") || "250", 10);
            if (page * per_page < normalizedResponse.data.total_commits) {
              params.set("page", String(page + 1));
              url = parsedUrl.toString();
            }
          }
          return { value: normalizedResponse };
        } catch (error) {
          if (error.status !== 409) throw error;
          url = "";
          return {
            value: {
              status: 200,
              headers: {},
              data: []
            }
          };
        }
      }
    })
  };
}
function paginate(octokit, route, parameters, mapFn) {
  if (typeof parameters === "function") {
    mapFn = parameters;
    parameters = void 0;
  }
  return gather(
    octokit,
    [],
    iterator(octokit, route, parameters)[Symbol.asyncIterator](),
    mapFn
  );
}
function gather(octokit, results, iterator2, mapFn) {
  return iterator2.next().then((result) => {
    if (result.done) {
      return results;
    }
    let earlyExit = false;
    function done() {
      earlyExit = true;
    }
    results = results.concat(
      mapFn ? mapFn(result.value, done) : result.value.data
    );
    if (earlyExit) {
      return results;
    }
    return gather(octokit, results, iterator2, mapFn);
  });
}
var composePaginateRest = Object.assign(paginate, {
  iterator
});
function paginateRest(octokit) {
  return {
    paginate: Object.assign(paginate.bind(null, octokit), {
      iterator: iterator.bind(null, octokit)
    })
  };
}
paginateRest.VERSION = VERSION7;

// node_modules/@octokit/app/dist-node/index.js
var VERSION8 = "16.1.4";
function webhooks(appOctokit, options2) {
  return new Webhooks({
    secret: options2.secret,
    transform: async (event) => {
      if (!("installation" in event.payload) || typeof event.payload.installation !== "object") {
        const octokit2 = new appOctokit.constructor({
          authStrategy: createUnauthenticatedAuth,
          auth: {
            reason: `"installation" key missing in webhook event payload`
          }
        });
        return {
          ...event,
          octokit: octokit2
        };
      }
      const installationId = event.payload.installation.id;
      const octokit = await appOctokit.auth({
        type: "installation",
        installationId,
        factory(auth6) {
          return new auth6.octokit.constructor({
            ...auth6.octokitOptions,
            authStrategy: createAppAuth,
            ...{
              auth: {
                ...auth6,
                installationId
              }
            }
          });
        }
      });
      octokit.hook.before("request", (options22) => {
        options22.headers["x-github-delivery"] = event.id;
      });
      return {
        ...event,
        octokit
      };
    }
  });
}
async function getInstallationOctokit(app, installationId) {
  return app.octokit.auth({
    type: "installation",
    installationId,
    factory(auth6) {
      const options2 = {
        ...auth6.octokitOptions,
        authStrategy: createAppAuth,
        ...{ auth: { ...auth6, installationId } }
      };
      return new auth6.octokit.constructor(options2);
    }
  });
}
function eachInstallationFactory(app) {
  return Object.assign(eachInstallation.bind(null, app), {
    iterator: eachInstallationIterator.bind(null, app)
  });
}
async function eachInstallation(app, callback) {
  const i = eachInstallationIterator(app)[Symbol.asyncIterator]();
  let result = await i.next();
  while (!result.done) {
    await callback(result.value);
    result = await i.next();
  }
}
function eachInstallationIterator(app) {
  return {
    async *[Symbol.asyncIterator]() {
      const iterator2 = composePaginateRest.iterator(
        app.octokit,
        "GET /app/installations"
      );
      for await (const { data: installations } of iterator2) {
        for (const installation of installations) {
          const installationOctokit = await getInstallationOctokit(
            app,
            installation.id
          );
          yield { octokit: installationOctokit, installation };
        }
      }
    }
  };
}
function eachRepositoryFactory(app) {
  return Object.assign(eachRepository.bind(null, app), {
    iterator: eachRepositoryIterator.bind(null, app)
  });
}
async function eachRepository(app, queryOrCallback, callback) {
  const i = eachRepositoryIterator(
    app,
    callback ? queryOrCallback : void 0
  )[Symbol.asyncIterator]();
  let result = await i.next();
  while (!result.done) {
    if (callback) {
      await callback(result.value);
    } else {
      await queryOrCallback(result.value);
    }
    result = await i.next();
  }
}
function singleInstallationIterator(app, installationId) {
  return {
    async *[Symbol.asyncIterator]() {
      yield {
        octokit: await app.getInstallationOctokit(installationId)
      };
    }
  };
}
function eachRepositoryIterator(app, query) {
  return {
    async *[Symbol.asyncIterator]() {
      const iterator2 = query ? singleInstallationIterator(app, query.installationId) : app.eachInstallation.iterator();
      for await (const { octokit } of iterator2) {
        const repositoriesIterator = composePaginateRest.iterator(
          octokit,
          "GET /installation/repositories"
        );
        for await (const { data: repositories } of repositoriesIterator) {
          for (const repository2 of repositories) {
            yield { octokit, repository: repository2 };
          }
        }
      }
    }
  };
}
function getInstallationUrlFactory(app) {
  let installationUrlBasePromise;
  return async function getInstallationUrl(options2 = {}) {
    if (!installationUrlBasePromise) {
      installationUrlBasePromise = getInstallationUrlBase(app);
    }
    const installationUrlBase = await installationUrlBasePromise;
    const installationUrl = new URL(installationUrlBase);
    if (options2.target_id !== void 0) {
      installationUrl.pathname += "/permissions";
      installationUrl.searchParams.append(
        "target_id",
        options2.target_id.toFixed()
      );
    }
    if (options2.state !== void 0) {
      installationUrl.searchParams.append("state", options2.state);
    }
    return installationUrl.href;
  };
}
async function getInstallationUrlBase(app) {
  const { data: appInfo } = await app.octokit.request("GET /app");
  if (!appInfo) {
    throw new Error("[@octokit/app] unable to fetch metadata for app");
  }
  return `${appInfo.html_url}/installations/new`;
}
var App = class {
  static VERSION = VERSION8;
  static defaults(defaults) {
    const AppWithDefaults = class extends this {
      constructor(...args) {
        super({
          ...defaults,
          ...args[0]
        });
      }
    };
    return AppWithDefaults;
  }
  octokit;
  // @ts-ignore calling app.webhooks will throw a helpful error when options.webhooks is not set
  webhooks;
  // @ts-ignore calling app.oauth will throw a helpful error when options.oauth is not set
  oauth;
  getInstallationOctokit;
  eachInstallation;
  eachRepository;
  getInstallationUrl;
  log;
  constructor(options2) {
    const Octokit2 = options2.Octokit || Octokit;
    const authOptions = Object.assign(
      {
        appId: options2.appId,
        privateKey: options2.privateKey
      },
      options2.oauth ? {
        clientId: options2.oauth.clientId,
        clientSecret: options2.oauth.clientSecret
      } : {}
    );
    const octokitOptions = {
      authStrategy: createAppAuth,
      auth: authOptions
    };
    if ("log" in options2 && typeof options2.log !== "undefined") {
      octokitOptions.log = options2.log;
    }
    this.octokit = new Octokit2(octokitOptions);
    this.log = Object.assign(
      {
        debug: () => {
        },
        info: () => {
        },
        warn: console.warn.bind(console),
        error: console.error.bind(console)
      },
      options2.log
    );
    if (options2.webhooks) {
      this.webhooks = webhooks(this.octokit, options2.webhooks);
    } else {
      Object.defineProperty(this, "webhooks", {
        get() {
          throw new Error("[@octokit/app] webhooks option not set");
        }
      });
    }
    if (options2.oauth) {
      this.oauth = new OAuthApp({
        ...options2.oauth,
        clientType: "github-app",
        Octokit: Octokit2
      });
    } else {
      Object.defineProperty(this, "oauth", {
        get() {
          throw new Error(
            "[@octokit/app] oauth.clientId / oauth.clientSecret options are not set"
          );
        }
      });
    }
    this.getInstallationOctokit = getInstallationOctokit.bind(
      null,
      this
    );
    this.eachInstallation = eachInstallationFactory(
      this
    );
    this.eachRepository = eachRepositoryFactory(
      this
    );
    this.getInstallationUrl = getInstallationUrlFactory(this);
  }
};

// src/bot/handler.ts
var MalformedPayloadError = class extends Error {
  constructor(event, issues) {
    super(`the ${event} payload cannot be read: ${issues.slice(0, 5).join("; ")}`);
    this.event = event;
    this.issues = issues;
  }
  event;
  issues;
  name = "MalformedPayloadError";
  status = 400;
};
function parsePayload(event, schema3, payload) {
  const parsed = schema3.safeParse(payload);
  if (parsed.success) return parsed.data;
  throw new MalformedPayloadError(
    event,
    parsed.error.issues.map(
      (i) => `${i.path.length === 0 ? "(the payload)" : i.path.join(".")}: ${i.message}`
    )
  );
}
function alreadyDone(run) {
  return {
    outcome: "duplicate",
    detail: `check run ${run.id} records that this delivery already finished: nothing was done again`
  };
}

// src/bot/payload-parts.ts
var commitSha = external_exports.string().regex(/^[0-9a-fA-F]{40}$/, "expected a 40-hex commit SHA").transform((s) => s.toLowerCase());
var repositoryPart = external_exports.object({
  name: external_exports.string().min(1),
  full_name: external_exports.string().regex(/^[^/\s]+\/[^/\s]+$/, "expected OWNER/NAME"),
  owner: external_exports.object({ login: external_exports.string().min(1) }),
  html_url: external_exports.string().url(),
  default_branch: external_exports.string().min(1).optional()
});
var senderPart = external_exports.object({ login: external_exports.string().min(1), type: external_exports.string().optional() });
function workflowPageUrl(repository2, workflowFile2) {
  return `${repository2.html_url.replace(/\/+$/, "")}/actions/workflows/${encodeURIComponent(workflowFile2)}`;
}

// src/github/base-ref-file.ts
var BaseRefReadError = class extends Error {
  constructor(message2, status) {
    super(message2);
    this.status = status;
  }
  status;
  name = "BaseRefReadError";
};
async function readBaseRefFile(octokit, target, path, options2) {
  const sha2 = target.sha !== void 0 && target.sha !== "" ? target.sha : void 0;
  let data;
  try {
    const response = await octokit.rest.repos.getContent({
      owner: target.owner,
      repo: target.repo,
      path,
      ref: sha2 ?? target.ref
    });
    data = response.data;
  } catch (error) {
    const status = statusOf(error);
    if (status === 404) return { kind: "missing" };
    throw new BaseRefReadError(error instanceof Error ? error.message : String(error), status);
  }
  if (Array.isArray(data)) return { kind: "folder" };
  const file = data;
  if (file.type !== "file") return { kind: "not-a-regular-file", type: String(file.type) };
  if (typeof file.size === "number" && file.size > options2.maxBytes)
    return { kind: "too-large", size: file.size };
  if (file.encoding !== "base64" || typeof file.content !== "string") {
    return { kind: "no-content", encoding: String(file.encoding) };
  }
  const bytes = Buffer.from(file.content.replace(/\s+/g, ""), "base64");
  if (bytes.length > options2.maxBytes) return { kind: "too-large", size: bytes.length };
  return { kind: "file", bytes };
}
function statusOf(error) {
  if (typeof error !== "object" || error === null) return null;
  const status = error.status;
  return typeof status === "number" ? status : null;
}

// src/github/writer-check.ts
var WRITER_ROLES = ["admin", "maintain", "write"];
var PermissionLookupError = class extends Error {
  constructor(message2, status) {
    super(message2);
    this.status = status;
  }
  status;
  name = "PermissionLookupError";
};
function writerByRole(answer) {
  const permission = (answer.permission || "none").toLowerCase();
  const role = (answer.role_name || permission).toLowerCase();
  const isWriter = WRITER_ROLES.includes(role) || permission === "admin" || permission === "write";
  return { isWriter, role, permission };
}
async function checkWriter(octokit, target) {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: target.owner,
      repo: target.repo,
      username: target.login
    });
    return writerByRole(data);
  } catch (error) {
    const status = statusOf(error);
    if (status === 404) return { isWriter: false, role: "none", permission: "none" };
    throw new PermissionLookupError(
      `could not read ${target.login}'s permission on ${target.owner}/${target.repo} (${status === null ? "no answer" : `HTTP ${status}`}: ${error instanceof Error ? error.message : String(error)})`,
      status
    );
  }
}
function accessWords(permission) {
  return `${permission === "none" ? "no" : permission} access`;
}

// src/bot/check-key.ts
var PREFIX = "evidence-gate-bot";
var FORM = /^evidence-gate-bot(?::pr=([1-9]\d{0,9}))?(?::run=([1-9]\d{0,15}):attempt=([1-9]\d{0,4}))?(?::resume=(\d{8}-\d{6}-[0-9a-f]{6}))?(:verify)?(:next)?$/;
function formatCheckKey(key) {
  const pr = key.pullRequest === null ? "" : `:pr=${key.pullRequest}`;
  const run = key.run === null ? "" : `:run=${key.run.id}:attempt=${key.run.attempt}`;
  const resume = key.resume === void 0 || key.resume === null ? "" : `:resume=${key.resume}`;
  const verify2 = key.verify === true ? ":verify" : "";
  return `${PREFIX}${pr}${run}${resume}${verify2}${key.next === true ? ":next" : ""}`;
}
function parseCheckKey(externalId) {
  const m = FORM.exec(externalId ?? "");
  if (m === null) return null;
  return {
    pullRequest: m[1] === void 0 ? null : Number(m[1]),
    run: m[2] === void 0 ? null : { id: Number(m[2]), attempt: Number(m[3]) },
    ...m[4] === void 0 ? {} : { resume: m[4] },
    ...m[5] === void 0 ? {} : { verify: true },
    ...m[6] === void 0 ? {} : { next: true }
  };
}
function compareAttempt(event, recorded) {
  const run = recorded?.run ?? null;
  if (run === null) return "newer";
  if (event.id !== run.id) return event.id > run.id ? "newer" : "older";
  if (event.attempt === run.attempt) return "same";
  return event.attempt > run.attempt ? "newer" : "older";
}

// src/bot/gate-buttons.ts
import { createHash } from "node:crypto";
var GATE_ID = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/;
var LEG = /^([1-9]\d{0,15})\.([1-9]\d{0,4})$/;
function waitingGate(ledger, leg) {
  if (ledger.conclusion?.outcome !== "paused" || !isRunId(ledger.runId)) return null;
  const last = /* @__PURE__ */ new Map();
  for (const row of ledger.rows) last.set(row.nodeId, row.verdict);
  const undecided = (id) => last.get(id) !== "PASS" && last.get(id) !== "FAIL";
  const gate = ledger.plan.nodes.find(
    (n) => n.type === "gate" && undecided(n.id) && n.dependsOn.every((d) => last.get(d) === "PASS")
  );
  if (gate === void 0 || !GATE_ID.test(gate.id) || !LEG.test(legText(leg))) return null;
  return { gate: gate.id, runId: ledger.runId, leg };
}
function legText(leg) {
  return `${leg.id}.${leg.attempt}`;
}
function legWords(leg) {
  return `workflow run ${leg.id} (attempt ${leg.attempt})`;
}
function buttonDigest(waiting) {
  return createHash("sha256").update(`evidence-gate-bot gate button
${waiting.runId}
${legText(waiting.leg)}
${waiting.gate}
`).digest("hex").slice(0, 12);
}
function buttonIdentifier(waiting, decision) {
  return `${decision}-${buttonDigest(waiting)}`;
}
function clamp(text, max) {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}\u2026`;
}
function gateButtons(waiting) {
  return [
    {
      label: clamp(`Approve ${waiting.gate}`, 20),
      description: clamp(`Resume the run past gate ${waiting.gate}`, 40),
      identifier: buttonIdentifier(waiting, "approve")
    },
    {
      label: clamp(`Reject ${waiting.gate}`, 20),
      description: clamp(`Fail the run at gate ${waiting.gate}`, 40),
      identifier: buttonIdentifier(waiting, "reject")
    }
  ];
}
var MARKER = /<!-- evidence-gate-bot gate=(\S+) run=(\S+) leg=(\S+) -->/g;
function gateMarker(waiting) {
  return `<!-- evidence-gate-bot gate=${waiting.gate} run=${waiting.runId} leg=${legText(waiting.leg)} -->`;
}
function readGateMarker(summary) {
  if (summary === null) return null;
  const found = [...summary.matchAll(MARKER)].at(-1);
  if (found === void 0) return null;
  const [, gate = "", runId = "", leg = ""] = found;
  if (!summary.trimEnd().endsWith(found[0])) return null;
  const legParts = LEG.exec(leg);
  if (legParts === null || !GATE_ID.test(gate) || !isRunId(runId)) return null;
  return { gate, runId, leg: { id: Number(legParts[1]), attempt: Number(legParts[2]) } };
}
var IDENTIFIER = /^(approve|reject)-([0-9a-f]{12})$/;
function clickedButton(identifier) {
  const m = IDENTIFIER.exec(identifier);
  return m === null ? null : { decision: m[1], digest: m[2] };
}
function decidesWaitingGate(clicked, waiting) {
  return clicked.digest === buttonDigest(waiting);
}
var REVERIFY_IDENTIFIER = "reverify";
var REVERIFY_BUTTON = {
  label: "Re-verify",
  description: "Run only the verify command: no model",
  identifier: REVERIFY_IDENTIFIER
};

// src/bot/app-check-runs.ts
var DELIVERY_ID = /^[0-9A-Za-z-]{1,64}$/;
var MARKER2 = /^<!-- evidence-gate-bot delivery=([0-9A-Za-z-]{1,64})( unfinished)? -->\n/;
function deliveryMarker(mark) {
  return `<!-- evidence-gate-bot delivery=${mark.delivery}${mark.done ? "" : " unfinished"} -->
`;
}
function deliveryMarkOf(summary) {
  const m = MARKER2.exec(summary ?? "");
  return m === null ? null : { delivery: m[1], done: m[2] === void 0 };
}
function stamped(summary, mark) {
  const bare = summary.replace(MARKER2, "");
  return mark === void 0 ? bare : `${deliveryMarker(mark)}${bare}`;
}
function fromListed(run) {
  return {
    id: run.id,
    headSha: run.head_sha,
    status: run.status,
    conclusion: run.conclusion,
    externalId: run.external_id,
    key: parseCheckKey(run.external_id),
    summary: run.output.summary,
    title: run.output.title,
    htmlUrl: run.html_url,
    deliveryMark: deliveryMarkOf(run.output.summary)
  };
}
var DUPLICATE_SUFFIX = " (duplicate)";
var AppCheckRuns = class {
  #o;
  #client;
  constructor(options2) {
    this.#o = options2;
    this.#client = new CheckRunClient({ octokit: options2.octokit, owner: options2.owner, repo: options2.repo });
  }
  get name() {
    return this.#o.name;
  }
  /** `true` when `run` says this delivery finished its work: this is a redelivery of a finished delivery. */
  doneHere(run) {
    const mark = run.deliveryMark;
    return mark !== null && mark.delivery === this.#o.delivery && mark.done;
  }
  /** `true` when `run` says this delivery made the first write of a completion and died before the last. */
  unfinishedHere(run) {
    const mark = run.deliveryMark;
    return mark !== null && mark.delivery === this.#o.delivery && !mark.done;
  }
  /** This delivery's mark for a write that is its `last` (`done`: the last write of all), else none. */
  #mark(last, done) {
    const delivery = this.#o.delivery;
    if (last !== true || delivery === void 0 || !DELIVERY_ID.test(delivery)) return void 0;
    return { delivery, done };
  }
  /**
   * `output` for a write: token shapes cleared, the delivery marker set when `last` (see the module comment),
   * each part cut to GitHub's limit (the marker opens the summary, so a cut at the end keeps it).
   */
  #output(output, last) {
    const summary = stamped(output.summary, this.#mark(last, true));
    return checkRunOutput({ ...output, summary }, { redact: redactTokenShapes, warn: () => {
    } });
  }
  /** The App's check run named {@link name} on `headSha` (the lowest id when a race made two), or `undefined`. */
  async find(headSha) {
    return ourCheckRun(await this.#current(headSha));
  }
  /** One check run by id (any app's: the caller checks it is the App's and named {@link name}). */
  async get(id) {
    const { data } = await this.#o.octokit.rest.checks.get({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id
    });
    return { ...fromListed(data), name: data.name, appId: data.app?.id ?? null };
  }
  /**
   * Creates the check run on `headSha` with `status` (`queued`, or `in_progress` for a run already going),
   * then settles a race (see the module comment).
   * @returns the commit's check run: this one, or an earlier one a concurrent delivery created.
   */
  async create(input) {
    const { data } = await this.#o.octokit.rest.checks.create({
      owner: this.#o.owner,
      repo: this.#o.repo,
      name: this.#o.name,
      head_sha: input.headSha,
      external_id: formatCheckKey(input.key),
      status: input.status,
      ...input.status === "in_progress" ? { started_at: timestamp() } : {},
      output: this.#output(input.output, input.last),
      ...input.detailsUrl === void 0 ? {} : { details_url: input.detailsUrl }
    });
    const mine = fromListed(data);
    const after = input.replacing ?? 0;
    const current = (await this.#current(input.headSha)).filter((r) => r.id > after);
    const first = ourCheckRun(current) ?? mine;
    const record = formatCheckKey(input.key);
    const duplicates = current.filter(
      (r) => r.id !== first.id && (r.id === mine.id || r.status !== "completed" && r.externalId === record)
    );
    if (first.id !== mine.id && !duplicates.some((r) => r.id === mine.id)) duplicates.push(mine);
    for (const duplicate of duplicates) await this.retire(duplicate.id, first.id);
    return first.id === mine.id ? { run: mine, created: true } : { run: first, created: false };
  }
  /**
   * Renames check run `id` `<name> (duplicate)` and completes it `skipped`, pointing at `keptId`, the commit's
   * check run (GitHub has no delete for check runs; a renamed run cannot stand in for the required check).
   */
  async retire(id, keptId) {
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      name: `${this.#o.name}${DUPLICATE_SUFFIX}`,
      status: "completed",
      conclusion: "skipped",
      completed_at: timestamp(),
      output: {
        title: "Duplicate: see the other check run",
        summary: `Two deliveries for this commit were handled at once and each created a check run. Check run ${keptId} ("${this.#o.name}") is this commit's; this one was renamed so it cannot stand in for it.`
      }
    });
  }
  /**
   * A fresh check run on `old`'s head taking over from `old` (a completed check run, which is never moved
   * back): created, the race with concurrent deliveries settled among runs later than `old`, then `old` marked
   * `:next` so lookups skip it. Idempotent: a redelivery finds the fresh run with {@link find}.
   */
  async replace(old, input) {
    const made = await this.create({ ...input, headSha: old.headSha, replacing: old.id });
    if (made.run.id !== old.id) {
      await this.record(old.id, { ...old.key ?? { pullRequest: null, run: null }, next: true });
    }
    return made;
  }
  /** Rewrites only what check run `id` records (`external_id`, `check-key.ts`): status and output stay. */
  async record(id, key) {
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      external_id: formatCheckKey(key)
    });
  }
  /** Moves a check run to `queued` or `in_progress` with a new output (and record, details link, buttons). */
  async move(id, input) {
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      status: input.status,
      ...input.status === "in_progress" ? { started_at: timestamp() } : {},
      output: this.#output(input.output, input.last),
      // A check run that moves on offers no buttons from its earlier state.
      actions: [],
      ...input.key === void 0 ? {} : { external_id: formatCheckKey(input.key) },
      ...input.detailsUrl === void 0 ? {} : { details_url: input.detailsUrl }
    });
  }
  /**
   * Replaces the output of a check run (and its buttons when `actions` is given), status unchanged; the write
   * that ends a delivery's work, so it records the delivery (a refusal said on the check run).
   */
  async annotateOutput(id, output, actions) {
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      output: this.#output(output, true),
      ...actions === void 0 ? {} : { actions: [...actions] }
    });
  }
  /**
   * Completes a check run through {@link CheckRunClient.complete}: conclusion, output, the annotations 50 per
   * request; then the buttons — `actions`, then Re-verify on every completed check run — in a second write
   * (the client's completion carries none). With `last`, that second write — the last — also rewrites the
   * title and summary with the delivery marker, so a delivery that dies between the two is done again.
   */
  async complete(id, input) {
    await this.#client.complete(id, {
      conclusion: input.conclusion,
      title: input.title,
      summary: stamped(input.summary, this.#mark(input.last, false)),
      ...input.text === void 0 || input.text === "" ? {} : { text: input.text },
      externalId: formatCheckKey(input.key),
      ...input.detailsUrl === void 0 ? {} : { detailsUrl: input.detailsUrl },
      ...input.annotations === void 0 ? {} : { annotations: input.annotations }
    });
    const actions = [...input.actions ?? [], REVERIFY_BUTTON].slice(0, 3);
    await this.#o.octokit.rest.checks.update({
      owner: this.#o.owner,
      repo: this.#o.repo,
      check_run_id: id,
      actions,
      ...this.#mark(input.last, true) === void 0 ? {} : {
        // The whole output again (GitHub's PATCH does not promise to keep a text it is not sent).
        output: this.#output(
          {
            title: input.title,
            summary: input.summary,
            ...input.text === void 0 || input.text === "" ? {} : { text: input.text }
          },
          true
        )
      }
    });
  }
  /** {@link #list} without the runs a later one took over from (`:next`); all of them if every run is marked. */
  async #current(headSha) {
    const all = await this.#list(headSha);
    const live = all.filter((r) => r.key?.next !== true);
    return live.length > 0 ? live : all.slice(-1);
  }
  /** The App's runs named {@link name} on `headSha`, lowest id first (first 100: a few per name in practice). */
  async #list(headSha) {
    const { data } = await this.#o.octokit.rest.checks.listForRef({
      owner: this.#o.owner,
      repo: this.#o.repo,
      ref: headSha,
      check_name: this.#o.name,
      app_id: this.#o.appId,
      filter: "all",
      per_page: 100
    });
    return data.check_runs.filter((run) => run.name === this.#o.name && (run.app?.id ?? this.#o.appId) === this.#o.appId).map(fromListed).sort((a, b) => a.id - b.id);
  }
};
function timestamp() {
  return (/* @__PURE__ */ new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");
}

// src/bot/rerun-handler.ts
var checkRunSchema = external_exports.object({
  check_run: external_exports.object({
    id: external_exports.number().int().positive(),
    name: external_exports.string(),
    head_sha: commitSha,
    app: external_exports.object({ id: external_exports.number().int() })
  }),
  repository: repositoryPart,
  sender: senderPart
});
var checkSuiteSchema = external_exports.object({
  check_suite: external_exports.object({ head_sha: commitSha, app: external_exports.object({ id: external_exports.number().int() }) }),
  repository: repositoryPart,
  sender: senderPart
});
function checksOf(ctx, repository2) {
  return new AppCheckRuns({
    octokit: ctx.octokit,
    owner: repository2.owner.login,
    repo: repository2.name,
    appId: ctx.config.appId,
    name: ctx.config.checkName,
    delivery: ctx.deliveryId
  });
}
async function onCheckRunRerequested(ctx, payload) {
  const event = parsePayload("check_run", checkRunSchema, payload);
  if (event.check_run.app.id !== ctx.config.appId || event.check_run.name !== ctx.config.checkName) {
    return {
      outcome: "ignored",
      detail: `check run ${event.check_run.id} is not this App's "${ctx.config.checkName}"`
    };
  }
  const checks = checksOf(ctx, event.repository);
  const run = await checks.get(event.check_run.id);
  return rerun(ctx, checks, run, event);
}
async function onCheckSuiteRerequested(ctx, payload) {
  const event = parsePayload("check_suite", checkSuiteSchema, payload);
  if (event.check_suite.app.id !== ctx.config.appId) {
    return { outcome: "ignored", detail: "the check suite is another app's" };
  }
  const checks = checksOf(ctx, event.repository);
  const run = await checks.find(event.check_suite.head_sha);
  if (run === void 0) {
    return {
      outcome: "ignored",
      detail: `no "${ctx.config.checkName}" check run on ${event.check_suite.head_sha.slice(0, 7)}`
    };
  }
  return rerun(ctx, checks, run, event);
}
async function rerun(ctx, checks, check, event) {
  if (checks.doneHere(check)) return alreadyDone(check);
  const owner = event.repository.owner.login;
  const repo = event.repository.name;
  const login2 = event.sender.login;
  const access = await checkWriter(ctx.octokit, { owner, repo, login: login2 });
  if (!access.isWriter) {
    return {
      outcome: "refused",
      detail: `${login2} has ${accessWords(access.permission)}; a re-run needs write`
    };
  }
  const current = await checks.find(check.headSha);
  if (current?.id !== check.id || check.key?.next === true) {
    return {
      outcome: "stale",
      detail: `check run ${check.id} was already re-run${current === void 0 ? "" : `: check run ${current.id} is current`}`
    };
  }
  if (check.status !== "completed") {
    return { outcome: "stale", detail: `check run ${check.id} is ${check.status}: its run is not over` };
  }
  const own = check.key ?? { pullRequest: null, run: null };
  const full = own.verify === true ? await fullRunOf(ctx, owner, repo, check.headSha) : void 0;
  const key = own.verify === true ? { pullRequest: own.pullRequest, run: full ?? null } : own;
  const recorded = key.run;
  const fail = async (title, reason) => {
    await checks.complete(check.id, {
      conclusion: "failure",
      key: own,
      title: `evidence-gate: ${title}`,
      summary: `## \u274C ${escapeInline(title)}

${escapeInline(reason)}

Nothing was re-run. Push a commit, or re-run the workflow from the Actions tab, to get a new verdict.`,
      last: true
    });
    return { outcome: "completed:failure", detail: title };
  };
  if (recorded === null) {
    return fail(
      "no workflow run to re-run",
      `Check run ${check.id} records no workflow run (${check.externalId ?? "no external id"}): the workflow never reported to it.`
    );
  }
  const movedOn = async () => {
    const attempt = await runAttempt(ctx, owner, repo, recorded.id);
    if (attempt === null || attempt <= recorded.attempt) return null;
    return {
      outcome: "stale",
      detail: `workflow run ${recorded.id} is at attempt ${attempt} already; check run ${check.id} records attempt ${recorded.attempt}`
    };
  };
  const before = await movedOn();
  if (before !== null) return before;
  try {
    await ctx.octokit.rest.actions.reRunWorkflow({ owner, repo, run_id: recorded.id });
  } catch (error) {
    const status = error.status;
    if (typeof status !== "number" || status >= 500) throw error;
    const after = await movedOn();
    if (after !== null) return after;
    const said = error.response?.data?.message;
    return fail(
      `workflow run ${recorded.id} cannot be re-run`,
      `GitHub answered ${status}${typeof said === "string" ? ` "${said}"` : ""} to re-running workflow run ${recorded.id} (it was deleted, or is too old to re-run).`
    );
  }
  const made = await checks.replace(check, {
    status: "queued",
    key: { pullRequest: key.pullRequest, run: { id: recorded.id, attempt: recorded.attempt + 1 } },
    output: {
      title: `Re-run of workflow run ${recorded.id} requested`,
      summary: `${escapeInline(login2)} asked for a re-run: workflow run ${recorded.id} runs again (attempt ${recorded.attempt + 1}). This check run completes with that attempt's ledger.`
    },
    last: true
  });
  return {
    outcome: "rerun",
    detail: `workflow run ${recorded.id} re-run by ${login2}; check run ${made.run.id} follows it`
  };
}
async function fullRunOf(ctx, owner, repo, headSha) {
  const { data } = await ctx.octokit.rest.actions.listWorkflowRunsForRepo({
    owner,
    repo,
    head_sha: headSha,
    event: "pull_request",
    per_page: 100
  });
  const newest = data.workflow_runs.filter((r) => r.path === `.github/workflows/${ctx.config.workflowFile}`).sort((a, b) => b.id - a.id)[0];
  return newest === void 0 ? void 0 : { id: newest.id, attempt: newest.run_attempt ?? 1 };
}
async function runAttempt(ctx, owner, repo, runId) {
  try {
    const { data } = await ctx.octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId });
    return data.run_attempt ?? 1;
  } catch (error) {
    const status = error.status;
    if (typeof status === "number" && status < 500) return null;
    throw error;
  }
}

// src/bot/pull-request-handler.ts
var PULL_REQUEST_ACTIONS = ["opened", "synchronize", "reopened", "ready_for_review"];
var schema = external_exports.object({
  action: external_exports.string().min(1),
  number: external_exports.number().int().positive(),
  pull_request: external_exports.object({ head: external_exports.object({ sha: commitSha }) }),
  repository: repositoryPart
});
async function onPullRequest(ctx, payload) {
  const event = parsePayload("pull_request", schema, payload);
  if (!PULL_REQUEST_ACTIONS.includes(event.action)) {
    return {
      outcome: "ignored",
      detail: `pull_request ${event.action} puts no new head in front of the workflow`
    };
  }
  const { repository: repository2 } = event;
  const headSha = event.pull_request.head.sha;
  const checks = checksOf(ctx, repository2);
  const existing = await checks.find(headSha);
  if (existing !== void 0) {
    return {
      outcome: "check-exists",
      detail: `check run ${existing.id} is already on ${headSha.slice(0, 7)}`
    };
  }
  const workflowUrl = workflowPageUrl(repository2, ctx.config.workflowFile);
  const made = await checks.create({
    headSha,
    key: { pullRequest: event.number, run: null },
    status: "queued",
    detailsUrl: workflowUrl,
    output: {
      title: `Waiting for ${ctx.config.workflowFile}`,
      summary: `Waiting for the workflow [${escapeInline(ctx.config.workflowFile)}](${workflowUrl}) to run on \`${headSha}\` (pull request #${event.number}). This check run follows that workflow run and completes with its qualified ledger; until then it is not a verdict.`
    },
    last: true
  });
  return made.created ? { outcome: "check-queued", detail: `check run ${made.run.id} on ${headSha.slice(0, 7)}` } : { outcome: "check-exists", detail: `a concurrent delivery created check run ${made.run.id}` };
}

// src/github/run-state-digest.ts
var MARKER3 = /<!-- evidence-gate-run-state run=(\S+) state=([0-9a-f]{64}|none) graph=([0-9a-f]{64}|none)(?: ignored=([0-9a-f]{64}|none))? -->/g;
function runStateDigestMarker(runId, digests) {
  const ignored = digests.ignored === void 0 ? "" : ` ignored=${digests.ignored ?? "none"}`;
  return `<!-- evidence-gate-run-state run=${runId} state=${digests.state ?? "none"} graph=${digests.graph ?? "none"}${ignored} -->`;
}
function readRunStateDigests(summary, runId) {
  if (summary === null) return null;
  let found = null;
  for (const match of summary.matchAll(MARKER3)) {
    if (match[1] !== runId) continue;
    found = {
      state: match[2] === "none" ? null : match[2],
      graph: match[3] === "none" ? null : match[3],
      ...match[4] !== void 0 ? { ignored: match[4] === "none" ? null : match[4] } : {}
    };
  }
  return found;
}
var RUN_STATE_DIGEST_FILE = "run-state-digest.json";
var digestFileSchema = external_exports.strictObject({
  runId: external_exports.string().min(1).max(64),
  state: external_exports.string().regex(/^[0-9a-f]{64}$/).nullable(),
  graph: external_exports.string().regex(/^[0-9a-f]{64}$/).nullable(),
  ignored: external_exports.string().regex(/^[0-9a-f]{64}$/).nullable().optional()
});
function parseRunStateDigestFile(text, runId) {
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = digestFileSchema.safeParse(json);
  if (!parsed.success || parsed.data.runId !== runId) return null;
  return {
    state: parsed.data.state,
    graph: parsed.data.graph,
    ...parsed.data.ignored !== void 0 ? { ignored: parsed.data.ignored } : {}
  };
}

// src/bot/dispatch-refusal.ts
function inputList(inputs) {
  const quoted = inputs.map((i) => `\`${i}\``);
  return quoted.length <= 1 ? quoted.join("") : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}
function dispatchFailure(error, o) {
  const status = error.status;
  const said = error.response?.data?.message;
  const message2 = typeof said === "string" ? said : "";
  const answered = typeof status === "number" && status < 500;
  const what = `GitHub answered ${typeof status === "number" ? status : "nothing"}${message2 === "" ? "" : ` "${message2}"`} to dispatching ${o.workflow} on ${o.ref}`;
  const workflow = escapeInline(o.workflow);
  const ref = escapeInline(o.ref);
  let fix;
  if (!answered) {
    fix = "GitHub did not answer: an outage, not the workflow or its inputs.";
  } else if (/^No ref found/i.test(message2)) {
    fix = `The repository has no branch ${ref}: the event named it the default branch, and it was renamed or deleted since. The workflow's inputs are not the problem; a new click carries the current default branch.`;
  } else if (/workflow_dispatch/i.test(message2)) {
    fix = `${workflow} on ${ref} has no \`workflow_dispatch\` trigger: add one declaring the inputs ${inputList(o.inputs)} (docs/bot.md, "The workflows").`;
  } else if (status === 404) {
    fix = `${workflow} is not on ${ref} (or the App cannot read it): it must be there and accept \`workflow_dispatch\` with the inputs ${inputList(o.inputs)} (docs/bot.md, "The workflows").`;
  } else {
    fix = `The workflow must exist on the default branch and accept \`workflow_dispatch\` with the inputs ${inputList(o.inputs)} (docs/bot.md, "The workflows").`;
  }
  return { answered, what, fix };
}

// src/github/run-provenance.ts
var import_yaml = __toESM(require_dist(), 1);
import { posix } from "node:path";
var PULL_REQUEST_FILES_CAP = 3e3;
var MAX_DEFINITION_FILES = 32;
var Unknown = class extends Error {
  constructor(message2, apiStatus = null) {
    super(message2);
    this.apiStatus = apiStatus;
  }
  apiStatus;
};
async function checkRunProvenance(o) {
  try {
    const workflow = o.upstream.workflowPath;
    if (workflow === null || workflow === "") {
      throw new Unknown(`workflow run ${o.upstream.runId} names no workflow file (workflow_run.path)`);
    }
    const pulls = await pullRequestsOf(o);
    for (const pull of pulls) {
      const changed = await changedFiles(o, pull.number);
      const definition = await definitionOf(o, pull, workflowFile(workflow));
      const files = rewritten(changed, definition);
      if (files.length > 0) return { kind: "rewritten", pullRequest: pull.number, files };
    }
    return { kind: "base", pullRequests: pulls.map((p) => p.number) };
  } catch (error) {
    if (error instanceof Unknown)
      return { kind: "unknown", reason: error.message, apiStatus: error.apiStatus };
    throw error;
  }
}
function workflowFile(path) {
  const at = path.indexOf("@");
  return at === -1 ? path : path.slice(0, at);
}
function apiRefusal(what, error) {
  const status = statusOf(error);
  const message2 = error instanceof Error ? error.message : String(error);
  return new Unknown(
    `${what} failed (${status === null ? "no answer" : `HTTP ${status}`}: ${message2})`,
    status
  );
}
async function pullRequestsOf(o) {
  const { upstream } = o;
  const found = [];
  const keep = (p) => {
    const headRepository = p.head.repo?.full_name ?? null;
    const head = p.head.sha.toLowerCase();
    if (head !== upstream.headSha && head !== o.pushedSha?.toLowerCase()) return;
    if (headRepository === null || upstream.headRepository === null) return;
    if (headRepository.toLowerCase() !== upstream.headRepository.toLowerCase()) return;
    found.push({ number: p.number, baseSha: p.base.sha, baseRef: p.base.ref });
  };
  if (upstream.pullRequests.length > 0) {
    for (const number of upstream.pullRequests) {
      try {
        const { data } = await o.octokit.rest.pulls.get({
          owner: o.owner,
          repo: o.repo,
          pull_number: number
        });
        keep(data);
      } catch (error) {
        throw apiRefusal(`reading pull request #${number}`, error);
      }
    }
  } else {
    if (upstream.headRepository === null || upstream.headBranch === null) {
      throw new Unknown(
        `workflow run ${upstream.runId} names no head repository or branch (the fork was deleted?), so its pull request cannot be found`
      );
    }
    const headOwner = upstream.headRepository.split("/")[0];
    const head = `${headOwner}:${upstream.headBranch}`;
    try {
      for await (const page of o.octokit.paginate.iterator(o.octokit.rest.pulls.list, {
        owner: o.owner,
        repo: o.repo,
        state: "open",
        head,
        per_page: 100
      })) {
        for (const p of page.data) keep(p);
      }
    } catch (error) {
      throw apiRefusal(`listing the open pull requests with head ${head}`, error);
    }
  }
  if (found.length === 0) {
    throw new Unknown(
      `no open pull request of ${o.owner}/${o.repo} has head ${upstream.headRepository ?? "(deleted)"}:${upstream.headBranch ?? "(none)"} at ${upstream.headSha}: it was closed, or its head moved on since this run (the newer head's run reports on that commit)`
    );
  }
  return found;
}
async function changedFiles(o, number) {
  const paths = /* @__PURE__ */ new Set();
  let listed = 0;
  try {
    for await (const page of o.octokit.paginate.iterator(o.octokit.rest.pulls.listFiles, {
      owner: o.owner,
      repo: o.repo,
      pull_number: number,
      per_page: 100
    })) {
      for (const f of page.data) {
        listed += 1;
        paths.add(f.filename);
        if (f.previous_filename !== void 0) paths.add(f.previous_filename);
      }
    }
  } catch (error) {
    throw apiRefusal(`listing pull request #${number}'s files`, error);
  }
  if (listed >= PULL_REQUEST_FILES_CAP) {
    throw new Unknown(
      `pull request #${number} changes ${PULL_REQUEST_FILES_CAP} files or more, and GitHub lists at most ${PULL_REQUEST_FILES_CAP}, so whether it changes the workflow that ran cannot be told`
    );
  }
  return paths;
}
async function definitionOf(o, pull, workflow) {
  const parts = [
    { path: workflow, exact: true, role: "the workflow file that ran" },
    { path: POLICY_FILE, exact: true, role: "the policy file" }
  ];
  const queue = [workflow];
  const seen = /* @__PURE__ */ new Set([workflow]);
  let read = 0;
  while (queue.length > 0) {
    const file = queue.shift();
    if (read >= MAX_DEFINITION_FILES) {
      throw new Unknown(
        `the workflow names more than ${MAX_DEFINITION_FILES} local workflow and action files; they were not all read`
      );
    }
    read += 1;
    const text = await baseFile(o, pull, file);
    if (text === null) continue;
    for (const uses of localUses(text, file)) {
      if (seen.has(uses.path)) continue;
      seen.add(uses.path);
      if (uses.kind === "workflow") {
        parts.push({ path: uses.path, exact: true, role: `the reusable workflow ./${uses.path} it uses` });
        queue.push(uses.path);
        continue;
      }
      const root = uses.path === ".";
      parts.push({
        path: uses.path,
        exact: false,
        role: root ? "the repository's root action (uses: ./), which it uses" : `the local action ./${uses.path} it uses`
      });
      const dir = root ? "" : `${uses.path}/`;
      queue.push(`${dir}action.yml`, `${dir}action.yaml`);
    }
  }
  return parts;
}
async function baseFile(o, pull, path) {
  try {
    const file = await readBaseRefFile(
      o.octokit,
      { owner: o.owner, repo: o.repo, ref: pull.baseRef, sha: pull.baseSha },
      path,
      { maxBytes: 1024 * 1024 }
    );
    if (file.kind === "missing") return null;
    if (file.kind !== "file") {
      throw new Unknown(`the base's ${path} (at ${pull.baseSha}) cannot be read: ${file.kind}`);
    }
    return file.bytes.toString("utf8");
  } catch (error) {
    if (!(error instanceof BaseRefReadError)) throw error;
    throw new Unknown(
      `reading the base's ${path} at ${pull.baseSha} failed (${error.status === null ? "no answer" : `HTTP ${error.status}`}: ${error.message})`,
      error.status
    );
  }
}
function localUses(text, file) {
  let doc;
  try {
    doc = (0, import_yaml.parse)(text);
  } catch (error) {
    throw new Unknown(
      `the base's ${file} is not YAML (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`
    );
  }
  const found = [];
  const walk = (node) => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (typeof node !== "object" || node === null) return;
    for (const [key, value2] of Object.entries(node)) {
      if (key === "uses" && typeof value2 === "string" && value2.trim().startsWith("./")) {
        const path = posix.normalize(value2.trim().replace(/@.*$/, "")).replace(/\/+$/, "");
        if (path === ".." || path.startsWith("../")) {
          throw new Unknown(`the base's ${file} uses ${JSON.stringify(value2)}, outside the repository`);
        }
        const workflow = path.startsWith(".github/workflows/") && /\.ya?ml$/.test(path);
        found.push({ path, kind: workflow ? "workflow" : "action" });
      } else {
        walk(value2);
      }
    }
  };
  walk(doc);
  return found;
}
function rewritten(changed, definition) {
  const files = [];
  for (const part of definition) {
    for (const path of changed) {
      const hit = part.exact ? path === part.path : part.path === "." || path.startsWith(`${part.path}/`);
      if (hit && !files.some((f) => f.path === path)) files.push({ path, role: part.role });
    }
  }
  return files;
}

// src/github/workflow-run-ledger.ts
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join as join3 } from "node:path";

// src/github/artifact.ts
var INVALID_NAME_CHARACTERS = /["':<>|*?\r\n\\/]/g;
function ledgerArtifactName(checkName) {
  return safeArtifactName(`${checkName}-ledger`);
}
function safeArtifactName(name) {
  return name.replace(INVALID_NAME_CHARACTERS, "-");
}

// src/github/ledger-artifact.ts
import { mkdtempSync as mkdtempSync2, readFileSync, statSync } from "node:fs";
import { join as join2 } from "node:path";

// src/github/artifact-zip.ts
var import_yauzl = __toESM(require_yauzl(), 1);
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { pipeline } from "node:stream/promises";
var RUN_ARCHIVE_LIMITS = { maxEntries: 2e4, maxTotalBytes: 256 * 1024 * 1024 };
var UnsafeArchiveError = class extends Error {
  name = "UnsafeArchiveError";
};
var S_IFMT = 61440;
var S_IFREG = 32768;
var S_IFDIR = 16384;
var S_IFLNK = 40960;
var MADE_BY_UNIX = 3;
function archiveEntryProblem(entry) {
  const name = entry.fileName;
  if (name === "" || /[\u0000-\u001f\u007f]/.test(name))
    return "an empty name or one with control characters";
  if (name.includes("\\")) return "a backslash in the name";
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return "an absolute path";
  const segments = (name.endsWith("/") ? name.slice(0, -1) : name).split("/");
  if (segments.some((s) => s === "..")) return "a `..` segment (it would land outside the folder)";
  if (segments.some((s) => s === "" || s === ".")) return "an empty or `.` segment";
  if (entry.versionMadeBy >>> 8 === MADE_BY_UNIX) {
    const type = entry.externalFileAttributes >>> 16 & S_IFMT;
    if (type === S_IFLNK) return "a symbolic link";
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR)
      return `a special file (mode ${type.toString(8)})`;
    if (type === S_IFDIR && !name.endsWith("/")) return "a folder entry whose name does not end in /";
  }
  return null;
}
async function extractArtifactZip(zip, target, limits = RUN_ARCHIVE_LIMITS) {
  if (existsSync(target)) throw new Error(`Internal error: ${target} exists already`);
  mkdirSync(dirname(target), { recursive: true });
  const staging = mkdtempSync(join(dirname(target), `.${basename(target)}.extract-`));
  try {
    const counted = await extractInto(zip, staging, limits);
    renameSync(staging, target);
    return counted;
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (error instanceof UnsafeArchiveError) throw error;
    throw new UnsafeArchiveError(
      `the archive could not be extracted: ${error instanceof Error ? error.message : String(error)}`
    );
  }
}
async function extractInto(zip, root, limits) {
  const zipfile = await (0, import_yauzl.fromBufferPromise)(zip, {
    decodeStrings: true,
    strictFileNames: true,
    validateEntrySizes: true
  });
  if (zipfile.entryCount > limits.maxEntries) {
    zipfile.close();
    throw new UnsafeArchiveError(
      `the archive holds ${zipfile.entryCount} entries; at most ${limits.maxEntries} are extracted`
    );
  }
  let files = 0;
  let bytes = 0;
  for await (const entry of zipfile.eachEntry()) {
    const problem = archiveEntryProblem(entry);
    if (problem !== null) {
      zipfile.close();
      throw new UnsafeArchiveError(`entry ${JSON.stringify(entry.fileName)} is refused: ${problem}`);
    }
    const path = join(root, ...entry.fileName.split("/").filter((s) => s !== ""));
    const inside = relative(root, path);
    if (inside === "" || inside.startsWith(`..${sep}`) || inside === "..") {
      zipfile.close();
      throw new UnsafeArchiveError(
        `entry ${JSON.stringify(entry.fileName)} is refused: it leaves the folder`
      );
    }
    if (entry.fileName.endsWith("/")) {
      mkdirSync(path, { recursive: true });
      continue;
    }
    bytes += entry.uncompressedSize;
    if (bytes > limits.maxTotalBytes) {
      zipfile.close();
      throw new UnsafeArchiveError(
        `the archive holds more than ${limits.maxTotalBytes} bytes uncompressed; refused`
      );
    }
    await writeEntry(zipfile, entry, path);
    files += 1;
  }
  return { files, bytes };
}
async function writeEntry(zipfile, entry, path) {
  mkdirSync(dirname(path), { recursive: true });
  const stream = await zipfile.openReadStreamPromise(entry);
  await pipeline(stream, createWriteStream(path, { flags: "wx", mode: 420 }));
}

// src/github/run-artifact-download.ts
import { createHash as createHash2 } from "node:crypto";

// src/github/fork.ts
function isForkHead(head, base) {
  if (head === null || head === void 0) return true;
  if (head.id !== void 0 && base.id !== void 0) return head.id !== base.id;
  if (head.full_name !== void 0 && base.full_name !== void 0)
    return head.full_name.toLowerCase() !== base.full_name.toLowerCase();
  return true;
}

// src/github/run-artifact-download.ts
var RUN_ARTIFACT_MAX_BYTES = 64 * 1024 * 1024;
var RunArtifactError = class extends Error {
  constructor(message2, status, transient) {
    super(message2);
    this.status = status;
    this.transient = transient ?? (status !== null && (status >= 500 || status === 429));
  }
  status;
  name = "RunArtifactError";
  transient;
};
function newestUsableArtifact(listed, name, unusable, fallbackRunId = null) {
  const skipped = [];
  const usable = listed.filter((a) => {
    if (a.name !== name) return false;
    const why = a.expired ? `artifact ${a.id} has expired` : unusable(a);
    if (why !== null) skipped.push(why);
    return why === null;
  });
  const newest = usable.sort(
    (a, b) => (Date.parse(b.created_at ?? "") || 0) - (Date.parse(a.created_at ?? "") || 0) || b.id - a.id
  )[0];
  if (newest === void 0) return { artifact: null, skipped };
  return {
    artifact: {
      id: newest.id,
      name: newest.name,
      sizeInBytes: newest.size_in_bytes,
      createdAt: newest.created_at,
      digest: newest.digest ?? null,
      workflowRunId: newest.workflow_run?.id ?? fallbackRunId,
      headSha: newest.workflow_run?.head_sha ?? null
    },
    skipped
  };
}
async function downloadRunArtifact(options2) {
  const { artifact } = options2;
  const max = options2.maxBytes ?? RUN_ARTIFACT_MAX_BYTES;
  const what = `artifact ${artifact.name} (id ${artifact.id})`;
  const kind = options2.kind ?? "a run directory artifact";
  if (artifact.sizeInBytes > max) {
    throw new RunArtifactError(
      `${what} is ${artifact.sizeInBytes} bytes; ${kind} may be at most ${max} bytes`,
      null
    );
  }
  let location;
  try {
    const response = await options2.octokit.rest.actions.downloadArtifact({
      owner: options2.owner,
      repo: options2.repo,
      artifact_id: artifact.id,
      archive_format: "zip",
      request: { redirect: "manual", ...options2.signal ? { signal: options2.signal } : {} }
    });
    location = response.headers.location;
  } catch (error) {
    throw artifactApiError(error, `could not download ${what}`);
  }
  if (location === void 0 || !/^https?:\/\//.test(location)) {
    throw new RunArtifactError(
      `could not download ${what}: GitHub answered without a download location`,
      null
    );
  }
  let blob;
  try {
    blob = await (options2.fetch ?? globalThis.fetch)(location, {
      redirect: "follow",
      ...options2.signal ? { signal: options2.signal } : {}
    });
  } catch (error) {
    throw new RunArtifactError(
      `could not download ${what} from its storage URL: ${error instanceof Error ? error.message : String(error)}`,
      null,
      true
    );
  }
  if (!blob.ok || blob.body === null) {
    throw new RunArtifactError(
      `could not download ${what}: the storage URL answered ${blob.status}`,
      blob.status
    );
  }
  const bytes = await readAtMost(blob.body, max, what, kind);
  if (artifact.digest?.startsWith("sha256:")) {
    const actual = `sha256:${createHash2("sha256").update(bytes).digest("hex")}`;
    if (actual.toLowerCase() !== artifact.digest.toLowerCase()) {
      throw new RunArtifactError(
        `${what} does not match its digest (${artifact.digest}, downloaded ${actual}): refused`,
        null
      );
    }
  }
  return bytes;
}
async function readAtMost(body, max, what, kind) {
  const chunks = [];
  let total = 0;
  const reader = body.getReader();
  for (; ; ) {
    const { done, value: value2 } = await reader.read();
    if (done) break;
    total += value2.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new RunArtifactError(`${what} is over ${max} bytes; ${kind} may be at most ${max} bytes`, null);
    }
    chunks.push(value2);
  }
  return Buffer.concat(chunks);
}
function artifactApiError(error, what) {
  const status = statusOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  const permission = status === 401 || status === 403 || status === 404 ? " Listing and downloading artifacts needs the token permission `actions: read`: add it to the job's `permissions`." : "";
  return new RunArtifactError(
    `${what} (${status === null ? "no answer" : `HTTP ${status}`}: ${detail}).${permission}`,
    status,
    status === null || status >= 500 || status === 429
  );
}

// src/github/ledger-artifact.ts
var LEDGER_ARTIFACT_MAX_BYTES = 8 * 1024 * 1024;
var LEDGER_ARCHIVE_LIMITS = { maxEntries: 8, maxTotalBytes: 32 * 1024 * 1024 };
var LEDGER_FILE = "ledger.json";
async function findLedgerArtifact(octokit, target) {
  let listed;
  try {
    const response = await octokit.rest.actions.listWorkflowRunArtifacts({
      owner: target.owner,
      repo: target.repo,
      run_id: target.workflowRunId,
      name: target.name,
      per_page: 100
    });
    listed = response.data.artifacts;
  } catch (error) {
    throw artifactApiError(
      error,
      `could not list the artifacts of workflow run ${target.workflowRunId} in ${target.owner}/${target.repo}`
    );
  }
  return newestUsableArtifact(
    listed,
    target.name,
    (a) => a.workflow_run?.id !== void 0 && a.workflow_run.id !== target.workflowRunId ? `artifact ${a.id} belongs to workflow run ${a.workflow_run.id}` : null,
    target.workflowRunId
  );
}
async function readLedgerArtifact(o) {
  const what = `artifact ${o.artifact.name} (id ${o.artifact.id})`;
  let zip;
  try {
    zip = await downloadRunArtifact({
      octokit: o.octokit,
      owner: o.owner,
      repo: o.repo,
      artifact: o.artifact,
      maxBytes: o.maxBytes ?? LEDGER_ARTIFACT_MAX_BYTES,
      kind: "a ledger artifact",
      ...o.fetch ? { fetch: o.fetch } : {},
      ...o.signal ? { signal: o.signal } : {}
    });
  } catch (error) {
    if (error instanceof RunArtifactError && error.status === null) {
      return { kind: "refused", reason: error.message, issues: [] };
    }
    throw error;
  }
  const folder = join2(mkdtempSync2(join2(o.tempDir, "evidence-gate-ledger-")), "artifact");
  try {
    await extractArtifactZip(zip, folder, o.limits ?? LEDGER_ARCHIVE_LIMITS);
  } catch (error) {
    if (!(error instanceof UnsafeArchiveError)) throw error;
    return { kind: "refused", reason: `${what} was refused: ${error.message}`, issues: [] };
  }
  const path = join2(folder, LEDGER_FILE);
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return { kind: "refused", reason: `${what} holds no ${LEDGER_FILE} at its root`, issues: [] };
  }
  if (!stat.isFile()) {
    return { kind: "refused", reason: `${what}: ${LEDGER_FILE} is not a file`, issues: [] };
  }
  const parsed = parseLedgerJson(readFileSync(path, "utf8"));
  if (!parsed.ok) {
    return {
      kind: "refused",
      reason: `${what}: ${LEDGER_FILE} is not a ledger of this version's schema (schemaVersion 1)`,
      issues: parsed.issues
    };
  }
  return { kind: "ledger", ledger: parsed.ledger, path, digests: digestsBeside(folder, parsed.ledger.runId) };
}
function digestsBeside(folder, runId) {
  const path = join2(folder, RUN_STATE_DIGEST_FILE);
  try {
    if (!statSync(path).isFile()) return null;
    return parseRunStateDigestFile(readFileSync(path, "utf8"), runId);
  } catch {
    return null;
  }
}

// src/github/workflow-run-ledger.ts
async function readWorkflowRunLedger(o) {
  const read = await readWorkflowRunLedgerUnchecked(o);
  return read.kind === "ledger" ? refusedUnlessAbout(read, o.upstream) : read;
}
async function readWorkflowRunLedgerUnchecked(o) {
  const { upstream } = o;
  const name = ledgerArtifactName(o.checkName);
  const cannotRead = (error) => ({
    kind: "none",
    title: `the ledger of workflow run ${upstream.runId} could not be read`,
    reason: error.message,
    issues: [],
    // 401/403/404: the token lacks `actions: read` — something the workflow's (or App's) owner must change.
    outcome: error.status === 401 || error.status === 403 || error.status === 404 ? "usage-error" : "failed",
    ...error.transient ? { transient: true } : {}
  });
  let artifact;
  try {
    const listed = await findLedgerArtifact(o.octokit, {
      owner: o.owner,
      repo: o.repo,
      workflowRunId: upstream.runId,
      name
    });
    if (listed.artifact === null) {
      const skipped = listed.skipped.length > 0 ? ` Not used: ${listed.skipped.join("; ")}.` : "";
      return {
        kind: "none",
        title: `workflow run ${upstream.runId} uploaded no ledger`,
        reason: `Workflow run ${upstream.runId} ended ${upstream.conclusion ?? "without a conclusion"} and has no artifact ${name}.${skipped} It crashed, was cancelled, or stopped before its ledger was written (its job summary says why); a run without a ledger is never reported as passing.`,
        issues: [],
        outcome: "failed"
      };
    }
    artifact = listed.artifact;
  } catch (error) {
    if (!(error instanceof RunArtifactError)) throw error;
    return cannotRead(error);
  }
  o.log?.(`artifact ${artifact.name} (id ${artifact.id}, ${artifact.sizeInBytes} bytes)`);
  let read;
  try {
    read = await readLedgerArtifact({
      octokit: o.octokit,
      owner: o.owner,
      repo: o.repo,
      artifact,
      tempDir: o.tempDir,
      ...o.signal ? { signal: o.signal } : {}
    });
  } catch (error) {
    if (!(error instanceof RunArtifactError)) throw error;
    return cannotRead(error);
  }
  if (read.kind === "refused") {
    const title = `the ledger of workflow run ${upstream.runId} was refused`;
    return { kind: "none", title, reason: read.reason, issues: read.issues, outcome: "failed" };
  }
  return { kind: "ledger", ledger: read.ledger, path: read.path, artifact, digests: read.digests };
}
var TransientGitHubError = class extends Error {
  name = "TransientGitHubError";
};
async function withWorkflowRunLedger(o, use) {
  const tempDir = await mkdtemp(join3(tmpdir(), "evidence-gate-ledger-"));
  try {
    const options2 = { ...o, tempDir };
    const read = o.checkAgainst === "event" ? await readWorkflowRunLedger(options2) : await readWorkflowRunLedgerUnchecked(options2);
    if (read.kind === "none" && read.transient === true) {
      throw new TransientGitHubError(`GitHub did not answer well, try again later: ${read.reason}`);
    }
    return await use(read);
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}
function refusedUnlessAbout(found, about) {
  const { ledger, artifact } = found;
  const problem = about.evidenceGateRunId !== void 0 && ledger.runId !== about.evidenceGateRunId ? `the ledger is run ${ledger.runId}'s, but run ${about.evidenceGateRunId} was awaited` : ledgerProblem(ledger, about);
  if (problem === null) return found;
  return {
    kind: "none",
    title: `the ledger of workflow run ${about.runId} was refused`,
    reason: `Artifact ${artifact.name} (id ${artifact.id}): ${problem}`,
    issues: [],
    outcome: "failed",
    refusedRunId: ledger.runId
  };
}
function ledgerProblem(ledger, upstream) {
  if (ledger.conclusion === null) return "the ledger is unfinished (it has no conclusion)";
  if (ledger.headSha === void 0) {
    return `the ledger names no head commit, so it cannot be tied to ${upstream.headSha}`;
  }
  if (ledger.headSha !== upstream.headSha) {
    return `the ledger is about head commit ${ledger.headSha}, but the workflow run's head commit is ${upstream.headSha}`;
  }
  if (ledger.conclusion.conclusion === "success") {
    const sinks = ledger.plan.nodes.filter((n) => n.sink);
    const decided = decideConclusion({
      rows: ledger.rows,
      sinks: sinks.map((n) => n.id),
      gateSinks: sinks.filter((n) => n.type === "gate").map((n) => n.id),
      buildEvidence: ledger.plan.buildEvidence,
      postedCommitTree: (ledger.postedCommit ?? ledger.startingCommit)?.tree ?? null,
      requireEvidence: ledger.plan.policy?.requireEvidence === true,
      end: { kind: "completed" },
      ...ledger.changedFiles !== void 0 ? { changedFiles: ledger.changedFiles } : {}
    });
    if (decided.conclusion !== "success") {
      return `the ledger claims success, but its own rows decide ${decided.conclusion} (${decided.rule})`;
    }
  }
  return null;
}
var PROVENANCE_HEADING = "### Reported from the pull request's workflow run";
function ledgerProvenanceMarkdown(upstream, o) {
  const run = upstream.htmlUrl !== null && /^https:\/\/\S+$/.test(upstream.htmlUrl) ? `[workflow run ${upstream.runId}](${upstream.htmlUrl.replace(/[()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)})` : `workflow run ${upstream.runId}`;
  const from = upstream.fromFork ? `the fork ${codeSpan(upstream.headRepository ?? "(deleted)", { inTable: false })}` : "this repository";
  const branch = upstream.headBranch === null ? "" : `, branch ${codeSpan(upstream.headBranch, { inTable: false })}`;
  const prs = upstream.pullRequests.length === 0 ? "" : ` (pull request ${upstream.pullRequests.map((n) => `#${n}`).join(", ")})`;
  return `${run}${upstream.workflowName ? ` of ${escapeInline(upstream.workflowName)}` : ""}, ended ${escapeInline(upstream.conclusion ?? "without a conclusion")}, on ${codeSpan(upstream.headSha, { inTable: false })} from ${from}${branch}${prs}${o.dependabot ? ", triggered by Dependabot" : ""}.`;
}
function reportedLedgerAppendix(o) {
  return `${PROVENANCE_HEADING}

${o.provenance}

Posted by ${o.postedBy} from the artifact ${codeSpan(o.artifact.name, { inTable: false })} (id ${o.artifact.id}), validated as untrusted data and re-rendered here.`;
}
function refusedLedgerOutput(f) {
  const issues = f.issues.length === 0 ? "" : `

What was found (the artifact's own text, shown as data):

${fencedBlock(f.issues.slice(0, 50).join("\n"))}${f.issues.length > 50 ? `

\u2026 and ${f.issues.length - 50} more` : ""}`;
  const title = `evidence-gate: ${f.title}`;
  const summary = `## \u274C ${escapeInline(title)}

${escapeInline(f.reason)}${issues}

Nothing from that run is posted as a verdict.

${PROVENANCE_HEADING}

${f.provenance}
`;
  return { title, summary };
}

// src/github/run-verdict.ts
function provenanceRefusal(found, o) {
  if (found.kind === "base") return null;
  const run = `workflow run ${o.upstream.runId}`;
  const tail = `

${PROVENANCE_HEADING}

${o.provenance}
`;
  if (found.kind === "unknown") {
    const denied = found.apiStatus === 401 || found.apiStatus === 403 || found.apiStatus === 404;
    const title2 = `evidence-gate: could not tell whether the pull request rewrote the workflow of ${run}`;
    const fix = denied ? `The token was refused: it needs ${o.permissions}.` : "A writer reviews the pull request, and re-runs its workflow once it can be told (its head is the run's, it lists fewer than 3000 files).";
    return {
      conclusion: denied ? "failure" : "action_required",
      outcome: denied ? "usage-error" : "refused",
      title: title2,
      reason: `${found.reason}. ${fix}`,
      summary: `## \u26A0\uFE0F ${escapeInline(title2)}

${escapeInline(found.reason)}.

A ledger is posted as a verdict only from a run whose workflow definition is the base branch's; this one could not be checked, so nothing from it is posted as a verdict. ${denied ? fix : escapeInline(fix)}${tail}`
    };
  }
  const pr = `pull request #${found.pullRequest}`;
  const title = `evidence-gate: ${pr} changes the workflow that produced this ledger`;
  const list = found.files.map((f) => `- ${codeSpan(f.path, { inTable: false })}: ${escapeInline(f.role)}`).join("\n");
  const names = found.files.map((f) => f.path).join(", ");
  return {
    conclusion: "action_required",
    outcome: "refused",
    title,
    reason: `${pr} changes ${names}, part of what ${run} ran: its ledger is not posted as a verdict. A writer reviews the change; to get a verdict, land it on the base branch in a pull request of its own (or take it out of this one), then re-run this pull request's workflow.`,
    summary: [
      `## \u26A0\uFE0F ${escapeInline(title)}`,
      "",
      `${escapeInline(run)} ran the workflow as ${escapeInline(pr)} has it, and ${escapeInline(pr)} changes:`,
      "",
      list,
      "",
      "On a pull request GitHub runs the workflow as the pull request has it, so that run decided what it uploaded: its ledger is not evidence the gate produced, and this check is never `success` for it. Nothing from that run is posted as a verdict.",
      "",
      `**What a writer does:** review the change to ${found.files.length === 1 ? "this file" : "these files"}. To get a verdict, land it on the base branch in a pull request of its own (or take it out of this one), then re-run this pull request's workflow: a run whose workflow definition is the base branch's is posted as usual. A writer who reviewed the whole pull request, workflow change included, may instead merge it past this check (a bypass of the required check).`,
      tail.slice(2)
    ].join("\n")
  };
}
function agreedWithRun(ledger, upstream) {
  const own = ledger.conclusion;
  if (own === null || upstream.conclusion === "success") return ledger;
  if (own.outcome !== "passed" && own.outcome !== "paused") return ledger;
  const github = upstream.conclusion ?? "no conclusion";
  const conclusion = github === "cancelled" ? "cancelled" : github === "timed_out" ? "timed_out" : "failure";
  const outcome = conclusion === "cancelled" ? "cancelled" : conclusion === "timed_out" ? "timed-out" : "failed";
  return {
    ...ledger,
    conclusion: {
      conclusion,
      outcome,
      rule: "workflow-run-not-success",
      title: `Workflow run ${upstream.runId} ended ${github}; its ledger says ${own.conclusion}`,
      reason: `GitHub reports workflow run ${upstream.runId} ended ${github}, while the ledger it uploaded concludes ${own.conclusion} (${own.title}). A ledger's ${own.conclusion} is posted only when GitHub's own verdict on the run is success too: a step failed, or the run was cancelled or timed out, after the ledger was written. Fix what failed (the run's log says what) and re-run the workflow.`
    }
  };
}
function needsProvenance(ledger, upstream) {
  const posted = agreedWithRun(ledger, upstream).conclusion?.conclusion;
  return posted === "success" || posted === "neutral" || posted === "action_required";
}

// src/bot/comment-run.ts
var COMMENT_RUN = /\bevidence-gate run #([1-9][0-9]{0,9})\b/;
function commentRunNamedBy(displayTitle) {
  const named = COMMENT_RUN.exec(displayTitle ?? "");
  return named === null ? null : Number(named[1]);
}
function asPullRequestRun(upstream, pull, repository2) {
  const headRepository = pull.head.repo?.full_name ?? null;
  return {
    ...upstream,
    headSha: pull.head.sha.toLowerCase(),
    headBranch: pull.head.ref,
    headRepository,
    fromFork: headRepository === null || headRepository.toLowerCase() !== repository2.full_name.toLowerCase(),
    pullRequests: [pull.number]
  };
}
async function commentRunAsPullRequestRun(ctx, upstream, repository2) {
  const what = `workflow run ${upstream.runId} (triggered by ${upstream.event})`;
  if (upstream.action !== "completed") {
    return { outcome: "ignored", detail: `${what} ${upstream.action}: it is reported once completed` };
  }
  const number = commentRunNamedBy(upstream.displayTitle);
  if (number === null) {
    return {
      outcome: "refused",
      detail: `${what}: its run-name ${JSON.stringify(upstream.displayTitle ?? "")} names no pull request; the workflow must set \`run-name: evidence-gate run #\${{ github.event.issue.number }}\` on issue_comment (docs/bot.md "The workflows"). Its ledger never says which pull request it is about: nothing is posted`
    };
  }
  const owner = repository2.owner.login;
  const repo = repository2.name;
  const reading = { octokit: ctx.octokit, owner, repo, upstream, checkName: ctx.config.checkName };
  const claimed = await withWorkflowRunLedger(
    { ...reading, checkAgainst: "caller" },
    async (read) => read.kind === "ledger" ? read.ledger.headSha?.toLowerCase() ?? null : read.title
  );
  if (claimed === null || !commitSha.safeParse(claimed).success) {
    return {
      outcome: "ignored",
      detail: `${what} on #${number}: ${claimed ?? "its ledger names no head commit"}; nothing is posted`
    };
  }
  let pull;
  try {
    pull = (await ctx.octokit.rest.pulls.get({ owner, repo, pull_number: number })).data;
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
    return { outcome: "ignored", detail: `${what}: #${number} is no pull request of ${owner}/${repo}` };
  }
  const head = pull.head.sha.toLowerCase();
  if (pull.state !== "open" || head !== claimed) {
    return {
      outcome: "stale",
      detail: `${what}: pull request #${number} is ${pull.state} at ${head.slice(0, 7)}, and its ledger is about ${claimed.slice(0, 7)}${pull.state === "open" ? " (its head moved on, or the ledger names another commit)" : ""}; nothing is posted`
    };
  }
  return asPullRequestRun(upstream, pull, repository2);
}

// src/bot/ledger-completion.ts
import { posix as posix2 } from "node:path";

// src/github/check-annotations.ts
import { statSync as statSync2 } from "node:fs";
import { isAbsolute, relative as relative2, resolve, sep as sep2 } from "node:path";
import { stripVTControlCharacters } from "node:util";
var MAX_LOCATIONS_PER_ROW = 10;
var MAX_ANNOTATIONS = 250;
var DETAIL_LINES = 40;
var PATH = String.raw`(?<![\w.:/\\@+~-])((?:[A-Za-z]:[\\/])?[\w.@+~/\\-]*[\w-]\.[A-Za-z][\w]*)`;
var COLON_FORM = new RegExp(`${PATH}:(\\d+)(?::(\\d+))?`, "g");
var PAREN_FORM = new RegExp(`${PATH}\\((\\d+)(?:,\\s*(\\d+))?\\)`, "g");
var PYTHON_FORM = /File "([^"]+)", line (\d+)/g;
function namedLocations(output) {
  const found = [];
  for (const rawLine of output.split(/\r?\n/)) {
    const line = stripVTControlCharacters(rawLine).replace(/\bfile:\/\//g, "");
    const hits = [];
    for (const form of [COLON_FORM, PAREN_FORM, PYTHON_FORM]) {
      for (const m of line.matchAll(form)) {
        const lineNo = Number(m[2]);
        if (!Number.isSafeInteger(lineNo) || lineNo < 1) continue;
        const column = m[3] === void 0 ? void 0 : Number(m[3]);
        hits.push({
          index: m.index ?? 0,
          location: {
            path: m[1],
            line: lineNo,
            ...column !== void 0 && column >= 1 ? { column } : {},
            text: line.trim()
          }
        });
      }
    }
    hits.sort((a, b) => a.index - b.index);
    for (const hit of hits) found.push(hit.location);
  }
  return found;
}
function failureAnnotations(ledger, options2) {
  const isFile = options2.isFile ?? defaultIsFile;
  const root = resolve(options2.repoRoot);
  const annotations = [];
  ledger.rows.forEach((row, i) => {
    if (!failed(ledger.rows, i)) return;
    const label = row.label ?? row.nodeId;
    const title = `evidence-gate: ${label} ${failureWords(row)}`;
    const output = row.verify?.outputTail ?? "";
    const details = lastLines(output === "" ? row.detail : output, DETAIL_LINES);
    const base = row.verify?.cwd ?? root;
    const seen = /* @__PURE__ */ new Set();
    let marked = 0;
    for (const location of namedLocations(`${output}
${row.detail}`)) {
      if (marked >= MAX_LOCATIONS_PER_ROW) break;
      const path = repositoryPath(location.path, base, root, isFile);
      if (path === null) continue;
      const key = `${path}:${location.line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      marked += 1;
      annotations.push({
        path,
        startLine: location.line,
        endLine: location.line,
        ...location.column === void 0 ? {} : { startColumn: location.column, endColumn: location.column },
        level: "failure",
        title,
        message: `${label} ${failureWords(row)}. The output names this line:
${location.text}`,
        ...details === "" ? {} : { rawDetails: details }
      });
    }
    if (marked === 0 && options2.workflowFile !== null) {
      annotations.push({
        path: options2.workflowFile,
        startLine: 1,
        endLine: 1,
        level: "failure",
        title,
        message: `${label} ${failureWords(row)}. Its output names no file of the repository; the ledger on this check run has the details.`,
        ...details === "" ? {} : { rawDetails: details }
      });
    }
  });
  return annotations.slice(0, MAX_ANNOTATIONS);
}
function failed(rows, i) {
  const row = rows[i];
  const replaced = rows.slice(i + 1).some((later) => later.nodeId === row.nodeId);
  if (row.verdict === "FAIL") return !(row.superseded === true && replaced);
  return row.verify !== void 0 && row.verify.outcome !== "passed" && !replaced;
}
function failureWords(row) {
  const verify2 = row.verify;
  if (verify2 !== void 0 && verify2.outcome !== "passed") {
    const how = verify2.outcome === "timed_out" ? "timed out" : verify2.outcome === "spawn_failed" ? "could not start" : `exited ${verify2.exitCode ?? "?"} (expected ${verify2.expectExit})`;
    return `failed: verify command \`${shownCommand(verify2.command)}\` ${how}`;
  }
  return row.verdict === "FAIL" ? `failed (${row.cause.replace(/_/g, " ")})` : "failed";
}
function repositoryPath(written, base, root, isFile) {
  const absolute = resolve(base, written);
  const rel = relative2(root, absolute);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  const path = rel.split(sep2).join("/");
  if (path.split("/").includes("node_modules") || path.startsWith(".git/")) return null;
  return isFile(absolute) ? path : null;
}
function defaultIsFile(path) {
  try {
    return statSync2(path).isFile();
  } catch {
    return false;
  }
}
function lastLines(text, n) {
  const lines = text.replace(/\s+$/, "").split("\n");
  return lines.slice(-n).join("\n");
}

// src/bot/ledger-completion.ts
var DEPENDABOT = "dependabot[bot]";
var APP_PERMISSIONS = "the App's `pull_requests: read` and `contents: read` permissions (app.yml; an owner accepts them on the installation)";
var POSTED_BY_APP = "the evidence-gate App";
function provenanceOf(upstream) {
  const dependabot = upstream.actor === DEPENDABOT || upstream.triggeringActor === DEPENDABOT;
  return ledgerProvenanceMarkdown(upstream, { dependabot });
}
async function ledgerCompletion(o) {
  const { found, upstream } = o;
  const provenance = provenanceOf(upstream);
  if (found.kind !== "ledger") {
    const refused = refusedLedgerOutput({ ...found, provenance });
    return { ...refused, conclusion: "failure", annotations: [], actions: [], runId: null };
  }
  const { artifact } = found;
  const ledger = agreedWithRun(found.ledger, upstream);
  const links = upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl };
  const output = renderCheckRunOutput(ledger, links);
  const waiting = waitingGate(ledger, { id: upstream.runId, attempt: upstream.runAttempt ?? 1 });
  const digests = found.digests === null || upstream.fromFork ? "" : runStateDigestMarker(ledger.runId, found.digests);
  const appendix = `${reportedLedgerAppendix({ provenance, artifact, postedBy: POSTED_BY_APP })}${waiting === null ? digests === "" ? "" : `

${digests}` : `

A person with write access decides with the buttons above: **Approve** or **Reject** gate \`${waiting.gate}\` dispatches the resume workflow for this commit.

${digests === "" ? "" : `${digests} `}${gateMarker(waiting)}`}`;
  return {
    title: output.title,
    summary: withAppendix(output.summary, appendix, trimmedNotice(links)),
    text: output.text,
    conclusion: ledger.conclusion.conclusion,
    annotations: await annotationsOnTree(ledger, o),
    actions: waiting === null || ledger.conclusion?.conclusion !== "action_required" ? [] : gateButtons(waiting),
    runId: ledger.runId
  };
}
async function annotationsOnTree(ledger, o) {
  const workflowFile2 = o.upstream.workflowPath;
  const base = { workflowFile: workflowFile2, repoRoot: repoRootOf(ledger) };
  if (failureAnnotations(ledger, { ...base, isFile: () => false }).length === 0) return [];
  let files;
  try {
    const { data } = await o.octokit.rest.git.getTree({
      owner: o.owner,
      repo: o.repo,
      tree_sha: o.commitSha ?? o.upstream.headSha,
      recursive: "1"
    });
    files = new Set(data.tree.filter((e) => e.type === "blob" && e.path !== void 0).map((e) => e.path));
  } catch {
    files = /* @__PURE__ */ new Set();
  }
  return failureAnnotations(ledger, {
    ...base,
    isFile: (path) => files.has(posix2.relative(base.repoRoot, path))
  });
}
function repoRootOf(ledger) {
  const dirs = ledger.rows.flatMap((r) => r.verify === void 0 ? [] : [r.verify.cwd]);
  const root = dirs.filter((d) => posix2.isAbsolute(d)).sort((a, b) => a.length - b.length)[0];
  return root ?? "/";
}

// src/bot/reverify.ts
var VERIFYING = /\bverify\s+([0-9a-f]{40})\b/;
function verifiedBy(displayTitle) {
  return VERIFYING.exec(displayTitle ?? "")?.[1] ?? null;
}
async function onReverifyClick(ctx, checks, checkRunId, click) {
  const { owner, repo, login: login2 } = click;
  const check = await checks.get(checkRunId);
  if (checks.doneHere(check)) return alreadyDone(check);
  const current = await checks.find(check.headSha);
  if (check.status !== "completed" || current?.id !== check.id) {
    return {
      outcome: "stale",
      detail: `check run ${check.id} is not the completed check run of ${check.headSha.slice(0, 7)} any more (already re-verified or re-run): nothing was dispatched`
    };
  }
  const access = await checkWriter(ctx.octokit, { owner, repo, login: login2 });
  if (!access.isWriter) {
    return {
      outcome: "refused",
      detail: `${login2} has ${accessWords(access.permission)}; a Re-verify needs write: nothing was dispatched`
    };
  }
  const pull = await pullRequestOf(ctx, check, { owner, repo });
  if (typeof pull === "string") return { outcome: "refused", detail: `${pull} Nothing was dispatched.` };
  const onHead = pull.headSha === check.headSha ? check : await checks.find(pull.headSha);
  if (onHead !== void 0 && onHead.status !== "completed") {
    return {
      outcome: "stale",
      detail: `check run ${onHead.id} on the pull request's head ${pull.headSha.slice(0, 7)} is ${onHead.status}: nothing was dispatched`
    };
  }
  const key = { pullRequest: pull.number, run: null, verify: true };
  const output = {
    title: "Re-verify requested",
    summary: `${escapeInline(login2)} (${accessWords(access.permission)}) asked to re-verify pull request #${pull.number} at \`${pull.headSha}\`: ${escapeInline(ctx.config.workflowFile)} is dispatched on ${escapeInline(click.defaultBranch)} in \`mode: verify\`, which runs only the verify command \u2014 no model. This check run completes with that run's ledger.`
  };
  const fresh = onHead === void 0 ? await checks.create({ headSha: pull.headSha, key, status: "queued", output }) : await checks.replace(onHead, { key, status: "queued", output });
  const inputs = { mode: "verify", sha: pull.headSha, "pull-request": String(pull.number) };
  try {
    await ctx.octokit.rest.actions.createWorkflowDispatch({
      owner,
      repo,
      workflow_id: ctx.config.workflowFile,
      ref: click.defaultBranch,
      inputs: { ...inputs }
    });
  } catch (error) {
    const failed2 = dispatchFailure(error, {
      workflow: ctx.config.workflowFile,
      ref: click.defaultBranch,
      inputs: Object.keys(inputs)
    });
    const why = failed2.what;
    await checks.complete(fresh.run.id, {
      conclusion: "failure",
      key,
      title: "evidence-gate: Re-verify not dispatched",
      summary: `## \u274C Re-verify not dispatched

${escapeInline(why)}. ${failed2.fix} Nothing ran; a writer can click Re-verify again.`,
      last: true
    });
    return { outcome: "dispatch-refused", detail: why };
  }
  return {
    outcome: "dispatched",
    detail: `Re-verify of #${pull.number} at ${pull.headSha.slice(0, 7)} by ${login2}; check run ${fresh.run.id} follows it`
  };
}
async function openPullRequestAt(ctx, o, headSha) {
  const open = await ctx.octokit.paginate(ctx.octokit.rest.pulls.list, {
    ...o,
    state: "open",
    per_page: 100
  });
  return open.find((p) => p.head.sha.toLowerCase() === headSha.toLowerCase())?.number;
}
async function pullRequestOf(ctx, check, o) {
  const recorded = check.key?.pullRequest ?? null;
  if (recorded === null) {
    const found = await openPullRequestAt(ctx, o, check.headSha);
    if (found === void 0) return `no open pull request has ${check.headSha.slice(0, 7)} as its head.`;
    return { number: found, headSha: check.headSha };
  }
  const { data } = await ctx.octokit.rest.pulls.get({ ...o, pull_number: recorded });
  if (data.state !== "open") return `pull request #${recorded} is ${data.state}.`;
  const head = commitSha.safeParse(data.head.sha);
  if (!head.success)
    return `pull request #${recorded}'s head ${JSON.stringify(data.head.sha)} is no commit SHA.`;
  return { number: recorded, headSha: head.data };
}
async function onVerifyWorkflowRun(ctx, checks, upstream, where) {
  if (upstream.action !== "completed") {
    return { outcome: "ignored", detail: `Re-verify workflow run ${upstream.runId} ${upstream.action}` };
  }
  const { owner, repo } = where;
  if (where.defaultBranch === void 0 || upstream.headBranch !== where.defaultBranch) {
    return {
      outcome: "refused",
      detail: `Re-verify workflow run ${upstream.runId} ran on ${JSON.stringify(upstream.headBranch)}, not the default branch ${JSON.stringify(where.defaultBranch ?? "(not in the event)")}: another ref's copy of the workflow is no Re-verify; nothing is posted`
    };
  }
  const sha2 = verifiedBy(upstream.displayTitle);
  if (sha2 === null) {
    return {
      outcome: "stale",
      detail: `Re-verify workflow run ${upstream.runId}: its run-name ${JSON.stringify(upstream.displayTitle ?? "")} names no commit (\`evidence-gate verify <sha>\`, docs/bot.md); its ledger never picks one: nothing is posted`
    };
  }
  const reading = { octokit: ctx.octokit, owner, repo, upstream, checkName: ctx.config.checkName };
  return withWorkflowRunLedger({ ...reading, checkAgainst: "caller" }, async (read) => {
    const target = await checks.find(sha2);
    if (target !== void 0 && checks.doneHere(target)) return alreadyDone(target);
    const redo = target !== void 0 && checks.unfinishedHere(target);
    if (target === void 0 || !redo && (target.status === "completed" || target.key?.verify !== true)) {
      return {
        outcome: "stale",
        detail: `no check run awaits a Re-verify on ${sha2.slice(0, 7)} (workflow run ${upstream.runId})`
      };
    }
    const found = read.kind === "ledger" ? refusedUnlessAbout(read, { headSha: target.headSha, runId: upstream.runId }) : read;
    const about = { ...upstream, headSha: target.headSha };
    const key = {
      pullRequest: target.key?.pullRequest ?? null,
      run: { id: upstream.runId, attempt: upstream.runAttempt ?? 1 },
      verify: true
    };
    const links = upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl };
    if (found.kind === "ledger" && needsProvenance(found.ledger, upstream)) {
      const refusal = await reverifyProvenance(ctx, target, about, { owner, repo });
      if (refusal !== null) {
        const { conclusion, title, summary } = refusal;
        await checks.complete(target.id, {
          conclusion,
          title,
          summary,
          annotations: [],
          actions: [],
          key,
          ...links,
          last: true
        });
        return {
          outcome: `completed:${conclusion}`,
          detail: `check run ${target.id}: Re-verify run ${upstream.runId}: ${refusal.reason}`
        };
      }
    }
    const done = await ledgerCompletion({ found, upstream: about, octokit: ctx.octokit, owner, repo });
    await checks.complete(target.id, { ...done, key, ...links, last: true });
    return {
      outcome: `completed:${done.conclusion}`,
      detail: `check run ${target.id}: Re-verify run ${upstream.runId}`
    };
  });
}
async function reverifyProvenance(ctx, target, about, o) {
  const number = target.key?.pullRequest ?? await openPullRequestAt(ctx, o, target.headSha) ?? null;
  let view = { ...about, pullRequests: [] };
  if (number !== null) {
    try {
      const { data } = await ctx.octokit.rest.pulls.get({ ...o, pull_number: number });
      view = asPullRequestRun(about, data, { full_name: `${o.owner}/${o.repo}` });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }
  return provenanceRefusal(await checkRunProvenance({ octokit: ctx.octokit, ...o, upstream: view }), {
    upstream: view,
    provenance: provenanceOf(view),
    permissions: APP_PERMISSIONS
  });
}

// src/bot/requested-action-handler.ts
var schema2 = external_exports.object({
  check_run: external_exports.object({
    id: external_exports.number().int().positive(),
    name: external_exports.string(),
    app: external_exports.object({ id: external_exports.number().int() })
  }),
  requested_action: external_exports.object({ identifier: external_exports.string() }),
  repository: repositoryPart.extend({ default_branch: external_exports.string().min(1) }),
  sender: senderPart
});
function resumeInputs(o) {
  return {
    "run-id": o.waiting.runId,
    sha: o.headSha,
    ...o.decision === "approve" ? { "approve-gate": o.waiting.gate } : { "reject-gate": o.waiting.gate },
    approver: o.approver
  };
}
async function onRequestedAction(ctx, payload) {
  const event = parsePayload("check_run", schema2, payload);
  if (event.check_run.app.id !== ctx.config.appId || event.check_run.name !== ctx.config.checkName) {
    return {
      outcome: "ignored",
      detail: `check run ${event.check_run.id} is not this App's "${ctx.config.checkName}"`
    };
  }
  const { repository: repository2 } = event;
  const owner = repository2.owner.login;
  const repo = repository2.name;
  const login2 = event.sender.login;
  const checks = checksOf(ctx, repository2);
  if (event.requested_action.identifier === REVERIFY_IDENTIFIER) {
    const click = { owner, repo, defaultBranch: repository2.default_branch, login: login2 };
    return onReverifyClick(ctx, checks, event.check_run.id, click);
  }
  const clicked = clickedButton(event.requested_action.identifier);
  if (clicked === null) {
    return {
      outcome: "ignored",
      detail: `not a button this App offers (identifier ${JSON.stringify(event.requested_action.identifier)}): nothing was dispatched`
    };
  }
  const { decision } = clicked;
  const check = await checks.get(event.check_run.id);
  if (checks.doneHere(check)) return alreadyDone(check);
  const waiting = readGateMarker(check.summary);
  if (check.status !== "completed" || check.conclusion !== "action_required" || waiting === null) {
    return { outcome: "stale", detail: `${alreadyActedOn(check)} Nothing was dispatched.` };
  }
  const word = decision === "approve" ? "approval" : "rejection";
  if (!decidesWaitingGate(clicked, waiting)) {
    const why = `the ${word} by ${login2} came from a button of another gate, leg or run (a redelivered click, or a page shown before the run moved on); check run ${check.id} now waits at gate ${waiting.gate} of run ${waiting.runId}, ${legWords(waiting.leg)}. A click decides the gate its button was shown for, once.`;
    await checks.annotateOutput(check.id, {
      title: check.title ?? `Paused at gate ${waiting.gate}`,
      summary: withNotice(
        check.summary ?? "",
        `> **Not dispatched:** ${escapeInline(why)} To decide gate \`${waiting.gate}\`, use the buttons above.`
      )
    });
    return { outcome: "stale", detail: `${why} Nothing was dispatched.` };
  }
  const access = await checkWriter(ctx.octokit, { owner, repo, login: login2 });
  if (!access.isWriter) {
    await checks.annotateOutput(check.id, {
      title: check.title ?? `Paused at gate ${waiting.gate}`,
      summary: withNotice(
        check.summary ?? "",
        `> **Refused:** ${escapeInline(login2)} has ${accessWords(access.permission)} to this repository; the ${word} of gate \`${waiting.gate}\` needs write access. Nothing was dispatched.`
      )
    });
    return { outcome: "refused", detail: `${login2} has ${accessWords(access.permission)}` };
  }
  const moved = await headMoved(ctx, check, { owner, repo });
  if (moved !== null) {
    await checks.annotateOutput(
      check.id,
      {
        title: `Gate ${waiting.gate}: not decided, the pull request moved on`,
        summary: withNotice(
          check.summary ?? "",
          `> **Refused:** the ${word} of gate \`${waiting.gate}\` by ${escapeInline(login2)} was not dispatched: ${escapeInline(moved)} A decision binds the commit it was shown for; the new head gets its own run and check run.`
        )
      },
      // The gate buttons go; Re-verify (of the pull request's current head) stays.
      [REVERIFY_BUTTON]
    );
    return { outcome: "refused", detail: moved };
  }
  const verb = decision === "approve" ? "approved" : "rejected";
  const key = { pullRequest: check.key?.pullRequest ?? null, run: check.key?.run ?? null };
  const digests = readRunStateDigests(check.summary, waiting.runId);
  await checks.move(check.id, {
    status: "in_progress",
    key: { ...key, resume: waiting.runId },
    output: {
      title: `Gate ${waiting.gate} ${verb} by ${login2}: resuming`,
      summary: `${escapeInline(login2)} (${accessWords(access.permission)}) ${verb} gate \`${waiting.gate}\` of run \`${waiting.runId}\` (${legWords(waiting.leg)}) on \`${check.headSha}\`. The resume workflow ${escapeInline(ctx.config.resumeWorkflowFile)} is dispatched on ${escapeInline(repository2.default_branch)}; this check run completes with the resumed run's ledger.${digests === null ? "" : `

${runStateDigestMarker(waiting.runId, digests)}`}`
    }
  });
  const inputs = resumeInputs({ waiting, decision, headSha: check.headSha, approver: login2 });
  const putBack = (notice, last) => checks.complete(check.id, {
    conclusion: "action_required",
    title: check.title ?? `Paused at gate ${waiting.gate}`,
    summary: withNotice(check.summary ?? "", notice),
    key,
    actions: gateButtons(waiting),
    last
  });
  try {
    await ctx.octokit.rest.actions.createWorkflowDispatch({
      owner,
      repo,
      workflow_id: ctx.config.resumeWorkflowFile,
      ref: repository2.default_branch,
      inputs: { ...inputs }
    });
  } catch (error) {
    const failed2 = dispatchFailure(error, {
      workflow: ctx.config.resumeWorkflowFile,
      ref: repository2.default_branch,
      inputs: ["run-id", "sha", "approve-gate", "reject-gate", "approver"]
    });
    const { answered, what: why } = failed2;
    await putBack(
      answered ? `> **Not dispatched:** ${escapeInline(why)}. ${failed2.fix}` : `> **Not dispatched:** ${escapeInline(why)}. The ${word} of gate \`${waiting.gate}\` by ${escapeInline(login2)} will be tried again when this delivery is redelivered; a writer can also click again.`,
      answered
    );
    if (!answered) throw error;
    return { outcome: "dispatch-refused", detail: why };
  }
  return {
    outcome: "dispatched",
    detail: `${decision} ${waiting.gate} of ${waiting.runId} (${legWords(waiting.leg)}) by ${login2}`
  };
}
function alreadyActedOn(check) {
  const awaited = check.key?.resume ?? null;
  if (check.status !== "completed" && awaited !== null) {
    return `the click was already acted on: check run ${check.id} is ${check.status}, awaiting the dispatched resume of run ${awaited}.`;
  }
  return `check run ${check.id} is ${`${check.status} ${check.conclusion ?? ""}`.trim()}, waiting for no gate: the run has moved on, or the click was already acted on.`;
}
async function headMoved(ctx, check, o) {
  const number = check.key?.pullRequest ?? null;
  if (number === null) {
    if (await openPullRequestAt(ctx, o, check.headSha) !== void 0) return null;
    return `no open pull request has ${check.headSha.slice(0, 7)} (the commit these buttons were shown for) as its head now.`;
  }
  const { data } = await ctx.octokit.rest.pulls.get({ owner: o.owner, repo: o.repo, pull_number: number });
  const head = commitSha.safeParse(data.head.sha);
  if (data.state !== "open") return `pull request #${number} is ${data.state}.`;
  if (!head.success || head.data !== check.headSha) {
    return `pull request #${number}'s head is now ${data.head.sha.slice(0, 7)}, not ${check.headSha.slice(0, 7)} (the commit these buttons were shown for).`;
  }
  return null;
}
function withNotice(summary, notice) {
  const lines = summary.trimEnd().split("\n");
  const last = lines.pop() ?? "";
  const tail = `

${last}`;
  const body = `${notice}

${lines.join("\n")}`;
  return `${truncateUtf8(body, CHECK_RUN_TEXT_MAX_BYTES - utf8Bytes(tail), "\u2026 (cut)")}${tail}`;
}

// src/github/workflow-run-event.ts
var sha = external_exports.string().regex(/^[0-9a-fA-F]{40}$/, "expected a 40-hex commit SHA");
var fullName = external_exports.string().regex(/^[^/\s]+\/[^/\s]+$/, "expected OWNER/NAME");
var repository = external_exports.object({ id: external_exports.number().int(), full_name: fullName });
var login = external_exports.object({ login: external_exports.string().min(1) }).nullable().optional();
var payloadSchema = external_exports.object({
  action: external_exports.string().min(1),
  workflow_run: external_exports.object({
    id: external_exports.number().int().positive(),
    name: external_exports.string().nullable().optional(),
    path: external_exports.string().optional(),
    run_attempt: external_exports.number().int().positive().optional(),
    event: external_exports.string().min(1),
    conclusion: external_exports.string().nullable(),
    head_sha: sha,
    head_branch: external_exports.string().nullable(),
    head_repository: repository.nullable().optional(),
    repository,
    pull_requests: external_exports.array(external_exports.object({ number: external_exports.number().int().positive(), head: external_exports.object({ sha: external_exports.string() }) })).nullable().optional(),
    actor: login,
    triggering_actor: login,
    html_url: external_exports.string().optional(),
    display_title: external_exports.string().optional()
  }),
  repository: external_exports.object({ full_name: fullName })
});
var WorkflowRunEventError = class extends Error {
  constructor(issues) {
    super(`the workflow_run event payload (GITHUB_EVENT_PATH) cannot be read:
- ${issues.join("\n- ")}`);
    this.issues = issues;
  }
  issues;
  name = "WorkflowRunEventError";
};
function parseWorkflowRunEvent(payload) {
  const parsed = payloadSchema.safeParse(payload);
  if (!parsed.success) {
    throw new WorkflowRunEventError(
      parsed.error.issues.map(
        (i) => `${i.path.length === 0 ? "(the payload)" : i.path.join(".")}: ${i.message}`
      )
    );
  }
  const run = parsed.data.workflow_run;
  const headSha = run.head_sha.toLowerCase();
  const head = run.head_repository ?? null;
  return {
    action: parsed.data.action,
    runId: run.id,
    runAttempt: run.run_attempt ?? null,
    event: run.event,
    conclusion: run.conclusion,
    headSha,
    headBranch: run.head_branch,
    headRepository: head?.full_name ?? null,
    repository: run.repository.full_name,
    fromFork: isForkHead(head, run.repository),
    pullRequests: (run.pull_requests ?? []).filter((pr) => pr.head.sha.toLowerCase() === headSha).map((pr) => pr.number),
    actor: run.actor?.login ?? null,
    triggeringActor: run.triggering_actor?.login ?? null,
    htmlUrl: run.html_url ?? null,
    workflowName: run.name ?? null,
    workflowPath: run.path ?? null,
    displayTitle: run.display_title ?? null
  };
}

// src/bot/pushed-commit.ts
var FULL_SHA = /^[0-9a-f]{40}$/;
var shortSha = (sha2) => sha2.slice(0, 7);
function pushedCommitProblem(claimed, context, commit) {
  const before = claimProblem(claimed, context);
  if (before !== null) return before;
  const sha2 = claimed.sha.toLowerCase();
  const head = context.headSha.toLowerCase();
  if (commit === null) {
    return `the ledger says the run pushed commit ${sha2}, but ${context.repository} has no such commit`;
  }
  const parent = commit.parents[0]?.toLowerCase();
  if (parent !== head) {
    return `the ledger says the run pushed commit ${sha2} on top of ${head}, but that commit's first parent is ${parent ?? "none (a root commit)"}`;
  }
  if (commit.tree.toLowerCase() !== claimed.tree.toLowerCase()) {
    return `the ledger says the run pushed commit ${sha2} with tree ${claimed.tree}, but that commit's tree is ${commit.tree}`;
  }
  return null;
}
function claimProblem(claimed, context) {
  if (context.fromFork) {
    return `the ledger says the run pushed commit ${claimed.sha}, but the run is a fork's pull request, whose branch evidence-gate never pushes to`;
  }
  if (!FULL_SHA.test(claimed.sha.toLowerCase()) || !FULL_SHA.test(claimed.tree.toLowerCase())) {
    return `the ledger's pushed commit (${claimed.sha}, tree ${claimed.tree}) is not a pair of full 40-hex SHAs`;
  }
  return null;
}
async function checkPushedCommit(octokit, o, context) {
  const early = claimProblem(o.claimed, context);
  if (early !== null) return early;
  let commit;
  try {
    const { data } = await octokit.rest.git.getCommit({
      owner: o.owner,
      repo: o.repo,
      commit_sha: o.claimed.sha.toLowerCase()
    });
    commit = { sha: data.sha, tree: data.tree.sha, parents: data.parents.map((p) => p.sha) };
  } catch (error) {
    const status = error.status;
    if (status !== 404 && status !== 409 && status !== 422) throw error;
    commit = null;
  }
  return pushedCommitProblem(o.claimed, context, commit);
}
function pushedCommitOf(ledger, upstream) {
  const posted = ledger.postedCommit;
  if (posted === void 0 || posted.sha.toLowerCase() === upstream.headSha.toLowerCase()) return void 0;
  return posted;
}
async function checkedPushClaim(octokit, found, claimed, upstream, where) {
  const problem = await checkPushedCommit(
    octokit,
    { ...where, claimed },
    { headSha: upstream.headSha, fromFork: upstream.fromFork, repository: `${where.owner}/${where.repo}` }
  );
  if (problem === null) return found;
  return {
    kind: "none",
    title: `the ledger of workflow run ${upstream.runId} claims a push GitHub does not show`,
    reason: `Artifact ${found.artifact.name} (id ${found.artifact.id}): ${problem}. Nothing is posted on the commit it names.`,
    issues: [],
    outcome: "failed",
    refusedRunId: found.ledger.runId
  };
}

// src/bot/resume-run-handler.ts
var AWAITED = /\b(\d{8}-\d{6}-[0-9a-f]{6})\s+([0-9a-f]{40})\b/;
function resumeNamedBy(displayTitle) {
  const named = AWAITED.exec(displayTitle ?? "");
  return named === null ? null : { runId: named[1], headSha: named[2] };
}
function awaitedResume(displayTitle, found) {
  const named = resumeNamedBy(displayTitle);
  if (named !== null) return named;
  if (found.kind !== "ledger" || found.ledger.headSha === void 0) return null;
  return { runId: found.ledger.runId, headSha: found.ledger.headSha };
}
async function onResumeWorkflowRun(ctx, checks, upstream, where) {
  if (upstream.action !== "completed") {
    return { outcome: "ignored", detail: `resume workflow run ${upstream.runId} ${upstream.action}` };
  }
  const reading = { octokit: ctx.octokit, ...where, upstream, checkName: ctx.config.checkName };
  return withWorkflowRunLedger({ ...reading, checkAgainst: "caller" }, async (read) => {
    const awaited = awaitedResume(upstream.displayTitle, read);
    if (awaited === null) {
      return {
        outcome: "ignored",
        detail: `resume workflow run ${upstream.runId} names no evidence-gate run (no run-name, no ledger)`
      };
    }
    const target = await checks.find(awaited.headSha);
    if (target !== void 0 && checks.doneHere(target)) return alreadyDone(target);
    const redo = target !== void 0 && checks.unfinishedHere(target);
    if (target === void 0 || !redo && (target.status === "completed" || target.key?.resume !== awaited.runId)) {
      return {
        outcome: "stale",
        detail: `no check run on ${awaited.headSha.slice(0, 7)} awaits the resume of run ${awaited.runId}`
      };
    }
    const found = read.kind === "ledger" ? refusedUnlessAbout(read, {
      headSha: target.headSha,
      runId: upstream.runId,
      evidenceGateRunId: awaited.runId
    }) : read;
    const about = { ...upstream, headSha: target.headSha };
    const done = await ledgerCompletion({ found, upstream: about, octokit: ctx.octokit, ...where });
    await checks.complete(target.id, {
      ...done,
      key: { pullRequest: target.key?.pullRequest ?? null, run: target.key?.run ?? null, resume: null },
      ...upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl },
      last: true
    });
    return {
      outcome: `completed:${done.conclusion}`,
      detail: found.kind === "ledger" ? `check run ${target.id}: resumed run ${found.ledger.runId} from artifact ${found.artifact.id}` : `check run ${target.id}: ${found.title}`
    };
  });
}

// src/bot/run-check-state.ts
function keyFor(upstream, attempt, existing) {
  return { pullRequest: existing?.key?.pullRequest ?? upstream.pullRequests[0] ?? null, run: attempt };
}
function runLink(upstream) {
  return upstream.htmlUrl !== null && /^https:\/\/\S+$/.test(upstream.htmlUrl) ? `[workflow run ${upstream.runId}](${upstream.htmlUrl})` : `workflow run ${upstream.runId}`;
}
function runningOutput(upstream, attempt) {
  const run = runLink(upstream);
  return {
    title: `Workflow run ${upstream.runId} is running`,
    summary: `${run}${upstream.workflowName ? ` of ${escapeInline(upstream.workflowName)}` : ""} (attempt ${attempt.attempt}) is running on \`${upstream.headSha}\`. This check run completes with that run's qualified ledger; until then it is not a verdict.`
  };
}
var HOLD_TITLE = "Waiting for a maintainer to approve the workflow run";
async function holdForApproval(checks, upstream, attempt) {
  const existing = await checks.find(upstream.headSha);
  if (existing !== void 0 && checks.doneHere(existing)) return alreadyDone(existing);
  const link = runLink(upstream);
  const output = {
    title: HOLD_TITLE,
    summary: `GitHub holds ${link} on \`${upstream.headSha}\` until a maintainer approves it (a first-time contributor's fork: the Actions tab's "Approve and run"). No job has run; this is not a verdict. This check run follows the approved run and completes with its qualified ledger.`
  };
  const detailsUrl = upstream.htmlUrl ?? void 0;
  const links = detailsUrl === void 0 ? {} : { detailsUrl };
  if (existing === void 0) {
    const made = await checks.create({
      headSha: upstream.headSha,
      key: keyFor(upstream, attempt, void 0),
      status: "queued",
      output,
      ...links,
      last: true
    });
    return { outcome: "held-for-approval", detail: `check run ${made.run.id} waits for approval` };
  }
  const order = compareAttempt(attempt, existing.key);
  if (order === "older" || order === "same" && existing.status === "completed") {
    return { outcome: "stale", detail: `check run ${existing.id} already records ${existing.externalId}` };
  }
  const key = keyFor(upstream, attempt, existing);
  if (existing.status === "completed") {
    const made = await checks.replace(existing, { key, status: "queued", output, ...links, last: true });
    return { outcome: "held-for-approval", detail: `check run ${made.run.id} waits for approval` };
  }
  await checks.move(existing.id, { status: "queued", key, output, ...links, last: true });
  return { outcome: "held-for-approval", detail: `check run ${existing.id} waits for approval` };
}

// src/bot/workflow-run-handler.ts
var envelope = external_exports.object({ repository: repositoryPart });
var CREATE_PATIENCE_MS = [250, 500, 1e3];
async function onWorkflowRun(ctx, payload) {
  const { repository: repository2 } = parsePayload("workflow_run", envelope, payload);
  let upstream;
  try {
    upstream = parseWorkflowRunEvent(payload);
  } catch (error) {
    if (!(error instanceof WorkflowRunEventError)) throw error;
    throw new MalformedPayloadError("workflow_run", error.issues);
  }
  const workflow = `.github/workflows/${ctx.config.workflowFile}`;
  const checks = checksOf(ctx, repository2);
  const sameRepository = upstream.repository.toLowerCase() === repository2.full_name.toLowerCase();
  if (upstream.workflowPath === `.github/workflows/${ctx.config.resumeWorkflowFile}` && upstream.event === "workflow_dispatch" && sameRepository) {
    return onResumeWorkflowRun(ctx, checks, upstream, {
      owner: repository2.owner.login,
      repo: repository2.name
    });
  }
  if (upstream.workflowPath === workflow && upstream.event === "workflow_dispatch" && sameRepository) {
    return onVerifyWorkflowRun(ctx, checks, upstream, {
      owner: repository2.owner.login,
      repo: repository2.name,
      defaultBranch: repository2.default_branch
    });
  }
  if (upstream.workflowPath !== workflow) {
    return {
      outcome: "ignored",
      detail: `workflow ${upstream.workflowPath ?? "(no path)"} is not ${workflow}`
    };
  }
  if (upstream.event === "issue_comment" && sameRepository) {
    const view = await commentRunAsPullRequestRun(ctx, upstream, repository2);
    if (!("runId" in view)) return view;
    return complete(ctx, checks, view, { id: view.runId, attempt: view.runAttempt ?? 1 }, repository2);
  }
  if (upstream.event !== "pull_request") {
    return {
      outcome: "ignored",
      detail: `workflow run ${upstream.runId} was triggered by ${upstream.event}, not pull_request`
    };
  }
  if (!sameRepository) {
    return { outcome: "ignored", detail: `workflow run ${upstream.runId} ran in ${upstream.repository}` };
  }
  const attempt = { id: upstream.runId, attempt: upstream.runAttempt ?? 1 };
  switch (upstream.action) {
    case "requested":
    case "in_progress":
      return markRunning(ctx, checks, upstream, attempt);
    case "completed":
      return upstream.conclusion === "action_required" ? holdForApproval(checks, upstream, attempt) : complete(ctx, checks, upstream, attempt, repository2);
    default:
      return { outcome: "ignored", detail: `workflow_run ${upstream.action}` };
  }
}
async function markRunning(ctx, checks, upstream, attempt) {
  let existing = await checks.find(upstream.headSha);
  for (const wait2 of CREATE_PATIENCE_MS) {
    if (existing !== void 0) break;
    await ctx.sleep(wait2);
    existing = await checks.find(upstream.headSha);
  }
  if (existing !== void 0 && checks.doneHere(existing)) return alreadyDone(existing);
  const output = runningOutput(upstream, attempt);
  const detailsUrl = upstream.htmlUrl ?? void 0;
  if (existing === void 0) {
    const made = await checks.create({
      headSha: upstream.headSha,
      key: keyFor(upstream, attempt, void 0),
      status: "in_progress",
      output,
      ...detailsUrl === void 0 ? {} : { detailsUrl },
      last: true
    });
    if (made.created) return { outcome: "check-in-progress", detail: `created check run ${made.run.id}` };
    existing = made.run;
  }
  const order = compareAttempt(attempt, existing.key);
  const held = order === "same" && existing.title === HOLD_TITLE && upstream.action === "requested";
  if (order === "older" || held || order === "same" && existing.status !== "queued") {
    return { outcome: "stale", detail: `check run ${existing.id} already records ${existing.externalId}` };
  }
  if (existing.status === "completed") {
    const made = await checks.replace(existing, {
      key: keyFor(upstream, attempt, existing),
      status: "in_progress",
      output,
      ...detailsUrl === void 0 ? {} : { detailsUrl },
      last: true
    });
    return {
      outcome: "check-in-progress",
      detail: `check run ${made.run.id} after completed check run ${existing.id}, run ${attempt.id} attempt ${attempt.attempt}`
    };
  }
  await checks.move(existing.id, {
    status: "in_progress",
    key: keyFor(upstream, attempt, existing),
    output,
    ...detailsUrl === void 0 ? {} : { detailsUrl },
    last: true
  });
  return {
    outcome: "check-in-progress",
    detail: `check run ${existing.id}, run ${attempt.id} attempt ${attempt.attempt}`
  };
}
async function complete(ctx, checks, upstream, attempt, repository2) {
  let target = await checks.find(upstream.headSha);
  if (target !== void 0) {
    if (checks.doneHere(target)) return alreadyDone(target);
    const order = compareAttempt(attempt, target.key);
    const redo = order === "same" && checks.unfinishedHere(target);
    const awaitingResume = typeof target.key?.resume === "string";
    if (!redo && (order === "older" || order === "same" && (target.status === "completed" || awaitingResume))) {
      return { outcome: "stale", detail: `check run ${target.id} already records ${target.externalId}` };
    }
    if (target.status === "completed" && !redo) {
      target = (await checks.replace(target, {
        key: keyFor(upstream, attempt, target),
        status: "in_progress",
        output: runningOutput(upstream, attempt),
        ...upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl }
      })).run;
    }
  } else {
    target = (await checks.create({
      headSha: upstream.headSha,
      key: keyFor(upstream, attempt, void 0),
      status: "in_progress",
      output: runningOutput(upstream, attempt),
      ...upstream.htmlUrl === null ? {} : { detailsUrl: upstream.htmlUrl }
    })).run;
  }
  const owner = repository2.owner.login;
  const repo = repository2.name;
  const reading = { octokit: ctx.octokit, owner, repo, upstream, checkName: ctx.config.checkName };
  return withWorkflowRunLedger({ ...reading, checkAgainst: "event" }, async (read) => {
    const key = keyFor(upstream, attempt, target);
    const detailsUrl = upstream.htmlUrl ?? void 0;
    const links = detailsUrl === void 0 ? {} : { detailsUrl };
    const claimed = read.kind === "ledger" ? pushedCommitOf(read.ledger, upstream) : void 0;
    const found = read.kind === "ledger" && claimed !== void 0 ? await checkedPushClaim(ctx.octokit, read, claimed, upstream, { owner, repo }) : read;
    if (found.kind === "ledger" && needsProvenance(found.ledger, upstream)) {
      const refusal = provenanceRefusal(
        await checkRunProvenance({
          octokit: ctx.octokit,
          owner,
          repo,
          upstream,
          ...claimed === void 0 ? {} : { pushedSha: claimed.sha }
        }),
        { upstream, provenance: provenanceOf(upstream), permissions: APP_PERMISSIONS }
      );
      if (refusal !== null) {
        const { conclusion, title, summary } = refusal;
        const done2 = { conclusion, title, summary, annotations: [], actions: [], ...links };
        const onPushed = claimed === void 0 ? void 0 : await checks.find(claimed.sha.toLowerCase());
        if (onPushed !== void 0 && onPushed.status !== "completed") {
          if (compareAttempt(attempt, onPushed.key) !== "older") {
            await checks.complete(onPushed.id, { ...done2, key: keyFor(upstream, attempt, onPushed) });
          }
        }
        await checks.complete(target.id, { ...done2, key, last: true });
        return {
          outcome: `completed:${refusal.conclusion}`,
          detail: `check run ${target.id}: ${refusal.reason}`
        };
      }
    }
    if (found.kind === "ledger" && claimed !== void 0) {
      return movedToPushed(ctx, checks, { found, claimed, upstream, attempt, target, owner, repo });
    }
    const done = await ledgerCompletion({ found, upstream, octokit: ctx.octokit, owner, repo });
    await checks.complete(target.id, { ...done, key, ...links, last: true });
    return {
      outcome: `completed:${done.conclusion}`,
      detail: found.kind === "ledger" ? `check run ${target.id}: run ${found.ledger.runId} from artifact ${found.artifact.id}` : `check run ${target.id}: ${found.title}`
    };
  });
}
async function movedToPushed(ctx, checks, o) {
  const { found, upstream, attempt, target } = o;
  const pushedSha = o.claimed.sha.toLowerCase();
  const detailsUrl = upstream.htmlUrl ?? void 0;
  const links = detailsUrl === void 0 ? {} : { detailsUrl };
  const done = await ledgerCompletion({
    found,
    upstream,
    octokit: ctx.octokit,
    owner: o.owner,
    repo: o.repo,
    commitSha: pushedSha
  });
  let onPushed = await checks.find(pushedSha);
  if (onPushed === void 0) {
    onPushed = (await checks.create({
      headSha: pushedSha,
      key: keyFor(upstream, attempt, void 0),
      status: "in_progress",
      output: {
        title: `Reporting workflow run ${upstream.runId}`,
        summary: `Workflow run ${upstream.runId} pushed \`${pushedSha}\` on top of \`${upstream.headSha}\`; its verdict follows here.`
      },
      ...links
    })).run;
  }
  const newerThere = compareAttempt(attempt, onPushed.key) === "older";
  if (!newerThere) {
    await checks.complete(onPushed.id, { ...done, key: keyFor(upstream, attempt, onPushed), ...links });
  }
  const short = shortSha(pushedSha);
  const link = onPushed.htmlUrl === null ? `check run ${onPushed.id}` : `[the check run on ${short}](${onPushed.htmlUrl})`;
  const branch = upstream.headBranch === null ? "the pull request's branch" : codeSpan(upstream.headBranch, { inTable: false });
  const provenance = provenanceOf(upstream);
  await checks.complete(target.id, {
    conclusion: "neutral",
    title: `Superseded by ${short}`,
    summary: [
      `## Superseded by ${short}`,
      "",
      `Run ${codeSpan(found.ledger.runId, { inTable: false })} ${done.conclusion === "success" ? "verified the nodes' changes and pushed them" : "pushed the nodes' changes"} to ${branch} as commit \`${pushedSha}\` (tree \`${o.claimed.tree.toLowerCase()}\`). ${newerThere ? `That commit's check run follows a newer workflow run: ${link}.` : `The verdict is posted on that commit: ${link}.`}`,
      "",
      `This check run, on ${shortSha(upstream.headSha)}, carries no verdict. GitHub shows ${short} with this commit as its first parent and that tree, as the ledger says.`,
      "",
      PROVENANCE_HEADING,
      "",
      provenance,
      ""
    ].join("\n"),
    key: keyFor(upstream, attempt, target),
    ...links,
    last: true
  });
  return {
    outcome: `completed:${done.conclusion}`,
    detail: newerThere ? `check run ${target.id} superseded by ${short}, whose check run ${onPushed.id} records a newer run` : `check run ${target.id} superseded by check run ${onPushed.id} on ${short}: run ${found.ledger.runId} from artifact ${found.artifact.id}`
  };
}

// src/bot/bot-app.ts
var ROUTES = [
  ["pull_request", onPullRequest],
  ["workflow_run", onWorkflowRun],
  ["check_run.rerequested", onCheckRunRerequested],
  ["check_run.requested_action", onRequestedAction],
  ["check_suite.rerequested", onCheckSuiteRerequested]
];
var MAX_RETRY_AFTER_S = 60;
var ROUTED = new Set(ROUTES.map(([name]) => name));
function perInstallationOctokit(options2) {
  const Base = GateOctokit.defaults(options2);
  return class InstallationOctokit extends Base {
    constructor(...args) {
      const given = args[0] ?? {};
      const installation = given.auth?.installationId;
      super({
        ...given,
        throttle: {
          ...options2.throttle,
          ...given.throttle,
          id: typeof installation === "number" ? `installation-${installation}` : "app"
        }
      });
    }
  };
}
function createBotApp(config, log) {
  const octokitLog = {
    debug: () => {
    },
    info: () => {
    },
    warn: (message2) => log.note("octokit", { level: "warn", message: message2 }),
    error: (message2) => log.note("octokit", { level: "error", message: message2 })
  };
  const Octokit2 = perInstallationOctokit(
    gateOctokitOptions({
      baseUrl: config.apiUrl,
      timing: config.timing,
      log: octokitLog,
      userAgent: "evidence-gate-bot",
      maxRetryAfterS: MAX_RETRY_AFTER_S
    })
  );
  const secret = config.webhookSecret;
  const app = new App({
    appId: config.appId,
    privateKey: config.privateKey,
    ...secret === null ? {} : { webhooks: { secret } },
    Octokit: Octokit2,
    log: octokitLog
  });
  const results = /* @__PURE__ */ new WeakMap();
  const scale = (config.timing.retryBaseMs ?? 1e3) / 1e3;
  for (const [name, handler] of secret === null ? [] : ROUTES) {
    app.webhooks.on(name, async (event) => {
      const ctx = {
        config,
        octokit: event.octokit,
        deliveryId: event.id,
        sleep: (ms) => sleep(Math.round(ms * scale))
      };
      results.set(event.payload, await handler(ctx, event.payload));
    });
  }
  return {
    app,
    appOctokit: app.octokit,
    async receive(delivery) {
      try {
        await app.webhooks.receive({
          id: delivery.id,
          name: delivery.name,
          payload: delivery.payload
        });
      } catch (error) {
        if (error instanceof AggregateError && error.errors.length === 1) throw error.errors[0];
        throw error;
      }
      return results.get(delivery.payload) ?? null;
    },
    verify: (body, signature) => app.webhooks.verify(body, signature),
    handles: (name, action) => ROUTED.has(name) || action !== null && ROUTED.has(`${name}.${action}`)
  };
}

// src/bot/config.ts
import { createPrivateKey as createPrivateKey2 } from "node:crypto";
import { readFileSync as readFileSync2 } from "node:fs";
var BotConfigError = class extends Error {
  constructor(variable, message2) {
    super(`${variable}: ${message2}`);
    this.variable = variable;
  }
  variable;
  name = "BotConfigError";
};
var WORKFLOW_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]*\.ya?ml$/;
var PEM = /^-----BEGIN (?:RSA )?PRIVATE KEY-----\n[\s\S]+\n-----END (?:RSA )?PRIVATE KEY-----\s*$/;
function parseSpan(text) {
  const m = /^(\d{1,6})(s|m|h|d)$/.exec(text.trim());
  if (m === null) return null;
  const unit = { s: 1e3, m: 6e4, h: 36e5, d: 864e5 }[m[2]];
  return Number(m[1]) * unit;
}
function value(env, name) {
  const v = env[name]?.trim();
  return v === void 0 || v === "" ? void 0 : v;
}
function required(env, name, what) {
  const v = value(env, name);
  if (v === void 0) throw new BotConfigError(name, `is not set: give ${what}`);
  return v;
}
function privateKeyOf(env) {
  const inline = value(env, "PRIVATE_KEY");
  const path = value(env, "PRIVATE_KEY_PATH");
  if (inline !== void 0 && path !== void 0) {
    throw new BotConfigError("PRIVATE_KEY", "and PRIVATE_KEY_PATH are both set: give the key one way");
  }
  let key;
  let from;
  if (path !== void 0) {
    from = "PRIVATE_KEY_PATH";
    try {
      key = readFileSync2(path, "utf8");
    } catch (error) {
      const code = error.code ?? "unreadable";
      throw new BotConfigError(from, `cannot read ${JSON.stringify(path)} (${code})`);
    }
  } else if (inline !== void 0) {
    from = "PRIVATE_KEY";
    key = inline.replace(/\\n/g, "\n");
  } else {
    throw new BotConfigError(
      "PRIVATE_KEY",
      "neither PRIVATE_KEY nor PRIVATE_KEY_PATH is set: give the App's private key (the .pem GitHub generated)"
    );
  }
  key = key.replace(/\r\n/g, "\n");
  if (!PEM.test(key.trim())) {
    throw new BotConfigError(
      from,
      "is not a PEM private key (expected -----BEGIN RSA PRIVATE KEY----- or -----BEGIN PRIVATE KEY-----)"
    );
  }
  let type;
  try {
    type = createPrivateKey2(key.trim()).asymmetricKeyType;
  } catch (error) {
    throw new BotConfigError(
      from,
      `holds no readable private key (${error instanceof Error ? error.message : String(error)}): give the .pem GitHub generated for the App`
    );
  }
  if (type !== "rsa") {
    throw new BotConfigError(
      from,
      `holds a ${type ?? "non-RSA"} key; a GitHub App's key is RSA (GitHub signs its JWTs RS256): give the .pem GitHub generated for the App`
    );
  }
  return `${key.trim()}
`;
}
function readBotConfig(env, o = {}) {
  const appIdText = required(env, "APP_ID", "the GitHub App's id (App settings \u2192 About \u2192 App ID)");
  if (!/^[1-9]\d{0,11}$/.test(appIdText)) {
    throw new BotConfigError("APP_ID", `${JSON.stringify(appIdText)} is not a positive whole number`);
  }
  const privateKey = privateKeyOf(env);
  const webhookSecret = o.receives === false ? value(env, "WEBHOOK_SECRET") ?? null : required(env, "WEBHOOK_SECRET", "the App's webhook secret");
  const portText = value(env, "PORT") ?? "3000";
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new BotConfigError("PORT", `${JSON.stringify(portText)} is not a TCP port (0\u201365535)`);
  }
  const host = value(env, "HOST") ?? "127.0.0.1";
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(host)) {
    throw new BotConfigError("HOST", `${JSON.stringify(host)} is not a host name or address`);
  }
  const checkName = value(env, "CHECK_NAME") ?? "evidence-gate";
  if (checkName.length > 100 || /[\r\n]/.test(checkName)) {
    throw new BotConfigError("CHECK_NAME", "must be one line of at most 100 characters");
  }
  const workflowFile2 = value(env, "WORKFLOW_FILE") ?? "evidence-gate.yml";
  if (!WORKFLOW_FILE.test(workflowFile2)) {
    throw new BotConfigError(
      "WORKFLOW_FILE",
      `${JSON.stringify(workflowFile2)} is not a workflow file name (e.g. evidence-gate.yml, no folder)`
    );
  }
  const resumeWorkflowFile = value(env, "RESUME_WORKFLOW_FILE") ?? workflowFile2.replace(/(\.ya?ml)$/, "-resume$1");
  if (!WORKFLOW_FILE.test(resumeWorkflowFile)) {
    throw new BotConfigError(
      "RESUME_WORKFLOW_FILE",
      `${JSON.stringify(resumeWorkflowFile)} is not a workflow file name (e.g. evidence-gate-resume.yml)`
    );
  }
  const apiUrl = (value(env, "GITHUB_API_URL") ?? "https://api.github.com").replace(/\/+$/, "");
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(apiUrl)) {
    throw new BotConfigError("GITHUB_API_URL", `${JSON.stringify(apiUrl)} is not an http(s) URL`);
  }
  const span = (name, fallback, o2 = {}) => {
    const text = value(env, name) ?? fallback;
    if (o2.off === true && text.toLowerCase() === "off") return null;
    const ms = parseSpan(text);
    if (ms === null || ms === 0) {
      throw new BotConfigError(
        name,
        `${JSON.stringify(text)} is not a period such as 90s, 15m, 1h or 2d${o2.off === true ? " (or off)" : ""}`
      );
    }
    return ms;
  };
  let timing;
  try {
    timing = timingFromEnv(env);
  } catch (error) {
    throw new BotConfigError("EVIDENCE_GATE_BACKOFF_SECOND_MS", error.message);
  }
  return {
    appId: Number(appIdText),
    privateKey,
    webhookSecret,
    port: Number(portText),
    host,
    checkName,
    workflowFile: workflowFile2,
    resumeWorkflowFile,
    apiUrl,
    redeliverEveryMs: span("REDELIVER_EVERY", "10m", { off: true }),
    redeliverSinceMs: span("REDELIVER_SINCE", "1h") ?? 36e5,
    reconcileEveryMs: span("RECONCILE_EVERY", "10m", { off: true }),
    reconcileAfterMs: span("RECONCILE_AFTER", "15m") ?? 9e5,
    shutdownDeadlineMs: span("SHUTDOWN_DEADLINE", "15s") ?? 15e3,
    timing
  };
}

// src/bot/redeliver.ts
var REFUSED_PAYLOAD = /* @__PURE__ */ new Set([400, 413, 415]);
var MAX_REDELIVERIES_PER_SWEEP = 100;
async function redeliverFailed(octokit, o) {
  const cutoff = (o.now ?? /* @__PURE__ */ new Date()).getTime() - o.sinceMs;
  const byGuid = /* @__PURE__ */ new Map();
  let listed = 0;
  pages: for await (const page of octokit.paginate.iterator(octokit.rest.apps.listWebhookDeliveries, {
    per_page: 100
  })) {
    for (const d of page.data) {
      if (Date.parse(d.delivered_at) < cutoff) break pages;
      listed += 1;
      byGuid.set(d.guid, [...byGuid.get(d.guid) ?? [], d]);
    }
  }
  const redelivered = [];
  const skipped = [];
  let failed2 = 0;
  for (const [guid, deliveries] of byGuid) {
    if (deliveries.some((d) => d.status_code >= 200 && d.status_code < 300)) continue;
    failed2 += 1;
    const newest = [...deliveries].sort((a, b) => b.id - a.id)[0];
    if (REFUSED_PAYLOAD.has(newest.status_code)) {
      skipped.push(
        `${guid} (${newest.event}): answered ${newest.status_code}, the payload itself was refused`
      );
      continue;
    }
    if (redelivered.length >= MAX_REDELIVERIES_PER_SWEEP) {
      skipped.push(`${guid} (${newest.event}): over ${MAX_REDELIVERIES_PER_SWEEP} redeliveries this sweep`);
      continue;
    }
    try {
      await octokit.rest.apps.redeliverWebhookDelivery({ delivery_id: newest.id });
      redelivered.push(newest.id);
    } catch (error) {
      const status = error.status;
      skipped.push(
        `${guid} (${newest.event}): redelivery refused (${typeof status === "number" ? status : "no answer"})`
      );
    }
  }
  return { listed, failed: failed2, redelivered, skipped };
}
var MAX_DELIVERY_ATTEMPTS = 5;
async function redeliverDelivery(octokit, o) {
  const cutoff = (o.now ?? /* @__PURE__ */ new Date()).getTime() - o.sinceMs;
  const mine = [];
  pages: for await (const page of octokit.paginate.iterator(octokit.rest.apps.listWebhookDeliveries, {
    per_page: 100
  })) {
    for (const d of page.data) {
      if (Date.parse(d.delivered_at) < cutoff) break pages;
      if (d.guid === o.guid) mine.push(d);
    }
  }
  if (mine.length === 0) return { kind: "not-found" };
  if (mine.length >= MAX_DELIVERY_ATTEMPTS) return { kind: "gave-up", attempts: mine.length };
  const newest = [...mine].sort((a, b) => b.id - a.id)[0];
  await octokit.rest.apps.redeliverWebhookDelivery({ delivery_id: newest.id });
  return { kind: "redelivered", deliveryId: newest.id, attempt: mine.length + 1 };
}

// src/bot/start-bot.ts
import { setTimeout as sleep3 } from "node:timers/promises";

// src/bot/delivery-log.ts
function createBotLog(o) {
  const redactor = createRedactor(o.secrets.flatMap((s) => [s, ...s.split("\n")]));
  const write = o.write ?? ((line) => void process.stdout.write(line));
  const now = o.now ?? (() => /* @__PURE__ */ new Date());
  const emit = (fields) => {
    const clean = Object.fromEntries(
      Object.entries(fields).filter(([, v]) => v !== void 0).map(([k, v]) => [k, typeof v === "string" ? redactor.text(v) : v])
    );
    write(`${JSON.stringify({ time: now().toISOString(), ...clean })}
`);
  };
  return {
    delivery: (line) => emit({ kind: "delivery", ...line }),
    note: (kind, fields) => emit({ kind, ...fields })
  };
}

// src/bot/delivery-work.ts
var DeliveryWork = class {
  #jobs = /* @__PURE__ */ new Set();
  /** The last job per ordering key (see {@link run}). */
  #tails = /* @__PURE__ */ new Map();
  /**
   * Starts `work` (its rejection is the caller's to catch: it is logged, never thrown here). With `key`, it
   * starts only after the previous job of the same key finished: deliveries about one commit are worked in
   * the order they arrived, so answering first does not make this process reorder them (a `workflow_run
   * in_progress` worked after the same run's `completed`).
   */
  run(label, work, key) {
    const before = key === void 0 ? Promise.resolve() : this.#tails.get(key) ?? Promise.resolve();
    const job = {
      label,
      done: before.then(work).catch(() => {
      }).finally(() => {
        this.#jobs.delete(job);
        if (key !== void 0 && this.#tails.get(key) === job.done) this.#tails.delete(key);
      })
    };
    if (key !== void 0) this.#tails.set(key, job.done);
    this.#jobs.add(job);
  }
  /** Jobs not yet finished. */
  get active() {
    return this.#jobs.size;
  }
  /**
   * Resolves once every job started so far (and any they started) finished — only those whose label
   * `which` accepts, when given.
   */
  async settled(which = () => true) {
    for (; ; ) {
      const open = [...this.#jobs].filter((j) => which(j.label));
      if (open.length === 0) return;
      await Promise.allSettled(open.map((j) => j.done));
    }
  }
  /**
   * Waits for the jobs to finish, at most `deadlineMs` milliseconds.
   * @returns the labels of the jobs still running at the deadline (empty: all finished).
   */
  async drain(deadlineMs) {
    let timer;
    const deadline = new Promise((resolve2) => {
      timer = setTimeout(resolve2, deadlineMs);
      timer.unref();
    });
    await Promise.race([this.settled(), deadline]);
    clearTimeout(timer);
    return [...this.#jobs].map((j) => j.label);
  }
};

// src/bot/http-server.ts
import { createServer } from "node:http";
var MAX_PAYLOAD_BYTES = 25 * 1024 * 1024;
var MAX_UNVERIFIED_BODIES = 8;
var BODY_READ_TIMEOUT_MS = 1e4;
var WEBHOOK_PATHS = /* @__PURE__ */ new Set(["/", "/api/github/webhooks"]);
var SIGNATURE = /^sha256=[0-9a-f]{64}$/i;
var TooLarge = class extends Error {
};
var TooSlow = class extends Error {
};
function send(res, status, body, headers = {}) {
  if (res.headersSent || res.destroyed || res.socket?.destroyed === true) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers
  });
  res.end(text);
}
async function readBody(req, limit, timeoutMs) {
  const chunks = [];
  let size = 0;
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    req.destroy();
  }, timeoutMs);
  try {
    for await (const chunk of req) {
      size += chunk.length;
      if (size > limit) throw new TooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (late) throw new TooSlow();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (late) throw new TooSlow();
  return Buffer.concat(chunks, size);
}
function header(req, name) {
  const v = req.headers[name];
  return typeof v === "string" && v !== "" ? v : null;
}
function createBotServer(o) {
  const limit = o.maxPayloadBytes ?? MAX_PAYLOAD_BYTES;
  const gate = { reading: 0, max: o.maxUnverifiedBodies ?? MAX_UNVERIFIED_BODIES };
  return createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      send(res, 200, { ok: true });
      return;
    }
    if (!WEBHOOK_PATHS.has(path)) {
      send(res, 404, { error: "not found: deliveries go to POST /, health checks to GET /healthz" });
      return;
    }
    if (req.method !== "POST") {
      send(res, 405, { error: "webhook deliveries are POST requests" });
      return;
    }
    void handleDelivery(req, res, o, limit, gate);
  });
}
function orderKey(installation, repository2, payload) {
  const p = payload;
  const sha2 = p.pull_request?.head?.sha ?? p.workflow_run?.head_sha ?? p.check_run?.head_sha ?? p.check_suite?.head_sha;
  return typeof sha2 === "string" ? `${installation}:${repository2 ?? ""}:${sha2.toLowerCase()}` : void 0;
}
async function handleDelivery(req, res, o, limit, gate) {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
  const delivery = header(req, "x-github-delivery");
  const event = header(req, "x-github-event");
  const line = { delivery, event, status: 500, outcome: "error", ms: 0 };
  const refuse = (status, outcome, body, detail, headers) => {
    line.status = status;
    line.outcome = outcome;
    if (detail !== void 0) line.detail = detail;
    send(res, status, body, headers);
    if (!req.readableEnded) res.once("finish", () => req.destroy());
    line.ms = elapsed();
    o.log.delivery(line);
  };
  try {
    if (delivery === null || event === null) {
      refuse(400, "missing-headers", { error: "X-GitHub-Event and X-GitHub-Delivery are required" });
      return;
    }
    const signature = header(req, "x-hub-signature-256");
    if (signature === null || !SIGNATURE.test(signature)) {
      refuse(401, "bad-signature", { error: "X-Hub-Signature-256 (sha256=<hex>) is required" });
      return;
    }
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) {
      refuse(413, "too-large", { error: `payload over ${limit} bytes` });
      return;
    }
    if (gate.reading >= gate.max) {
      refuse(
        503,
        "busy",
        { error: `over ${gate.max} deliveries are being read at once; try again` },
        void 0,
        { "retry-after": "1" }
      );
      return;
    }
    let body;
    gate.reading += 1;
    try {
      body = await readBody(req, limit, o.bodyReadTimeoutMs ?? BODY_READ_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof TooSlow) {
        const seconds = (o.bodyReadTimeoutMs ?? BODY_READ_TIMEOUT_MS) / 1e3;
        refuse(408, "too-slow", { error: `the body did not arrive within ${seconds} s` });
        return;
      }
      if (!(error instanceof TooLarge)) throw error;
      refuse(413, "too-large", { error: `payload over ${limit} bytes` });
      return;
    } finally {
      gate.reading -= 1;
    }
    const text = body.toString("utf8");
    if (!await o.bot.verify(text, signature).catch(() => false)) {
      refuse(401, "bad-signature", { error: "signature does not match the payload and the webhook secret" });
      return;
    }
    let payload;
    try {
      payload = JSON.parse(text);
    } catch {
      refuse(400, "malformed", { error: "the body is not JSON" });
      return;
    }
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      refuse(400, "malformed", { error: "the body is not a JSON object" });
      return;
    }
    const p = payload;
    const action = typeof p.action === "string" ? p.action : null;
    line.action = action;
    line.repository = typeof p.repository?.full_name === "string" ? p.repository.full_name : null;
    if (!o.bot.handles(event, action)) {
      refuse(202, "ignored", { ok: true, outcome: "ignored" }, `no handler for ${event}`);
      return;
    }
    const installation = p.installation?.id;
    if (typeof installation !== "number" || !Number.isSafeInteger(installation) || installation <= 0) {
      refuse(
        202,
        "ignored",
        { ok: true, outcome: "ignored" },
        `the ${event} payload names no installation: no installation token, nothing to do`
      );
      return;
    }
    send(res, 202, { ok: true, outcome: "accepted" });
    line.status = 202;
    line.answeredMs = elapsed();
    o.work.run(
      delivery,
      async () => {
        try {
          const result = await o.bot.receive({ id: delivery, name: event, payload });
          line.outcome = result?.outcome ?? "ignored";
          if (result?.detail !== void 0) line.detail = result.detail;
        } catch (error) {
          line.outcome = error instanceof MalformedPayloadError ? "malformed" : "error";
          line.detail = error instanceof Error ? error.message : String(error);
          if (!(error instanceof MalformedPayloadError)) o.onFailed?.({ id: delivery, name: event, error });
        } finally {
          line.ms = elapsed();
          o.log.delivery(line);
        }
      },
      orderKey(installation, line.repository ?? null, payload)
    );
  } catch (error) {
    refuse(
      500,
      "error",
      { error: "the delivery could not be read" },
      error instanceof Error ? error.message : String(error)
    );
  }
}

// src/bot/reconcile.ts
import { setTimeout as sleep2 } from "node:timers/promises";
function lostDispatchAfterMs(config) {
  return 2 * config.reconcileAfterMs;
}
function newestOf(runs) {
  return [...runs].sort((a, b) => b.id - a.id)[0];
}
async function reconcileOpenCheckRuns(bot, config, log, now = () => /* @__PURE__ */ new Date()) {
  const counts = { repositories: 0, open: 0, settled: 0, gone: 0, duplicates: 0, left: 0, failed: 0 };
  const scale = (config.timing.retryBaseMs ?? 1e3) / 1e3;
  for await (const { octokit: client, repository: repository2, installation } of reconcileTargets(bot)) {
    counts.repositories += 1;
    const octokit = client;
    const owner = repository2.owner.login;
    const repo = repository2.name;
    try {
      const cutoff = now().getTime() - config.reconcileAfterMs;
      const pulls = await octokit.paginate(octokit.rest.pulls.list, {
        owner,
        repo,
        state: "open",
        per_page: 100
      });
      const heads = [...new Set(pulls.map((p) => p.head.sha.toLowerCase()))];
      const checks = new AppCheckRuns({ octokit, owner, repo, appId: config.appId, name: config.checkName });
      for (const sha2 of heads) {
        const { data } = await octokit.rest.checks.listForRef({
          owner,
          repo,
          ref: sha2,
          check_name: config.checkName,
          app_id: config.appId,
          filter: "all",
          per_page: 100
        });
        const stuck = data.check_runs.filter(
          (c) => c.name === config.checkName && c.app?.id === config.appId && c.status !== "completed" && Date.parse(c.started_at ?? "") < cutoff
        );
        const live = data.check_runs.filter(
          (c) => c.name === config.checkName && c.app?.id === config.appId && parseCheckKey(c.external_id)?.next !== true
        ).sort((a, b) => a.id - b.id);
        for (const check of stuck) {
          counts.open += 1;
          try {
            const key = parseCheckKey(check.external_id);
            const ctx = {
              config,
              octokit,
              // Its completions are marked as a delivery's are (`app-check-runs.ts`).
              deliveryId: `reconcile-${check.id}`,
              sleep: (ms) => sleep2(Math.round(ms * scale))
            };
            const settle = async (run) => {
              const action = run.status === "completed" ? "completed" : "in_progress";
              const result = await onWorkflowRun(ctx, {
                action,
                workflow_run: run,
                // A run's own `repository` (the REST API's minimal one) may lack `default_branch`, which a
                // Re-verify run is checked against: the installation's listing has it.
                repository: { default_branch: repository2.default_branch, ...run.repository },
                installation: { id: installation.id }
              });
              return result.outcome;
            };
            const runsOf = async (file, query) => {
              const since = query.head_sha === void 0 ? Date.parse(check.started_at ?? "") : Number.NaN;
              return await octokit.paginate(
                octokit.rest.actions.listWorkflowRuns,
                { owner, repo, workflow_id: file, ...query, per_page: 100 },
                (response, done) => {
                  const runs = response.data;
                  if (runs.some((r) => Date.parse(r.created_at ?? "") < since)) done();
                  return runs.filter((r) => !(Date.parse(r.created_at ?? "") < since));
                }
              );
            };
            const dispatched = async (file, names) => newestOf(
              (await runsOf(file, { event: "workflow_dispatch" })).filter(
                (r) => names(r.display_title ?? null)
              )
            );
            const dispatchPending = Date.parse(check.started_at ?? "") > now().getTime() - lostDispatchAfterMs(config);
            const fromRecordedRun = async (run, k) => {
              let body = null;
              try {
                body = (await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: run.id })).data;
              } catch (error) {
                if (statusOf(error) !== 404) throw error;
              }
              if (body === null) {
                await checks.complete(check.id, {
                  conclusion: "failure",
                  key: k,
                  title: `Workflow run ${run.id} is gone`,
                  summary: `This check run waited for [workflow run ${run.id}](${check.details_url ?? ""}) (attempt ${run.attempt}), which GitHub no longer has (deleted, or its repository's history was rewritten). No ledger can be read, so this check is not a verdict: push a commit or re-run the workflow to get one.`
                });
                return "gone";
              }
              return body.status === "completed" ? settle(body) : "left:running";
            };
            let outcome;
            const kept = live[0];
            if (key?.resume) {
              const awaited = key.resume;
              const resume = await dispatched(config.resumeWorkflowFile, (title) => {
                const named = resumeNamedBy(title);
                return named?.runId === awaited && named.headSha === sha2;
              });
              if (resume !== void 0) {
                outcome = resume.status === "completed" ? await settle(resume) : "left:resume-running";
              } else if (key.run === null || dispatchPending) {
                outcome = "left:awaits-resume";
              } else {
                const leg = { ...key, resume: null };
                await checks.record(check.id, leg);
                const settled = await fromRecordedRun(key.run, leg);
                outcome = settled === "gone" ? "gone" : `lost-click:${settled}`;
              }
            } else if (kept !== void 0 && kept.id < check.id && key?.verify !== true && (!key?.run || compareAttempt(key.run, parseCheckKey(kept.external_id)) !== "newer")) {
              await checks.retire(check.id, kept.id);
              outcome = "duplicate";
            } else if (key?.verify === true && key.run === null) {
              const verify2 = await dispatched(config.workflowFile, (title) => verifiedBy(title) === sha2);
              if (verify2 !== void 0) {
                outcome = verify2.status === "completed" ? await settle(verify2) : "left:verify-running";
              } else if (dispatchPending) {
                outcome = "left:verify-pending";
              } else {
                await checks.complete(check.id, {
                  conclusion: "failure",
                  key,
                  title: "evidence-gate: Re-verify never ran",
                  summary: `## \u274C Re-verify never ran

A writer's Re-verify queued this check run on \`${sha2}\`, but no run of ${escapeInline(config.workflowFile)} named \`evidence-gate verify ${sha2}\` exists ${Math.round(lostDispatchAfterMs(config) / 6e4)} minutes later: the dispatch was lost. Nothing was verified, so this check is not a verdict; click Re-verify again.`
                });
                outcome = "lost-click:completed:failure";
              }
            } else if (key?.run) {
              outcome = await fromRecordedRun(key.run, key);
            } else {
              const run = newestOf(
                await runsOf(config.workflowFile, { event: "pull_request", head_sha: sha2 })
              );
              outcome = run === void 0 ? "left:no-run" : await settle(run);
            }
            if (outcome === "gone") counts.gone += 1;
            else if (outcome === "duplicate") counts.duplicates += 1;
            else if (outcome.startsWith("left:")) counts.left += 1;
            else counts.settled += 1;
            log.note("reconcile-check", {
              repository: `${owner}/${repo}`,
              checkRun: check.id,
              headSha: sha2,
              was: check.status,
              outcome
            });
          } catch (error) {
            counts.failed += 1;
            log.note("reconcile-check", {
              repository: `${owner}/${repo}`,
              checkRun: check.id,
              headSha: sha2,
              error: error instanceof Error ? error.message : String(error)
            });
          }
        }
      }
    } catch (error) {
      counts.failed += 1;
      log.note("reconcile-check", {
        repository: `${owner}/${repo}`,
        error: error instanceof Error ? error.message : String(error)
      });
    }
  }
  return counts;
}
function reconcileTargets(bot) {
  const app = bot.app;
  return (async function* () {
    for await (const { octokit, installation } of app.eachInstallation.iterator()) {
      const o = octokit;
      for await (const page of o.paginate.iterator(o.rest.apps.listReposAccessibleToInstallation, {
        per_page: 100
      })) {
        for (const repository2 of page.data) {
          yield { octokit, repository: repository2, installation };
        }
      }
    }
  })();
}

// src/bot/start-bot.ts
var SELF_REDELIVERY_PAUSE_MS = 1e4;
var ABANDON_REDELIVERY_MS = 5e3;
function botLogFor(config, write) {
  const secrets = [config.webhookSecret, config.privateKey].filter((s) => s !== null);
  return createBotLog({ secrets, ...write ? { write } : {} });
}
function message(error) {
  return error instanceof Error ? error.message : String(error);
}
async function startBot(config, o = {}) {
  const log = botLogFor(config, o.write);
  const bot = createBotApp(config, log);
  const work = new DeliveryWork();
  const scale = (config.timing.retryBaseMs ?? 1e3) / 1e3;
  let closing = false;
  const askAgain = async (guid) => {
    try {
      for (let tries = 1; tries <= 3; tries++) {
        const done = await redeliverDelivery(bot.appOctokit, { guid, sinceMs: config.redeliverSinceMs });
        if (done.kind !== "not-found" || tries === 3) {
          log.note("redeliver-one", {
            delivery: guid,
            result: done.kind,
            ...done.kind === "redelivered" ? { attempt: done.attempt } : {},
            ...done.kind === "gave-up" ? { attempts: done.attempts } : {}
          });
          return;
        }
        await sleep3(Math.round(1e3 * scale * tries));
      }
    } catch (error) {
      log.note("redeliver-one", { delivery: guid, result: "error", error: message(error) });
    }
  };
  const server = createBotServer({
    bot,
    log,
    work,
    onFailed: ({ id }) => work.run(`redeliver ${id}`, async () => {
      if (!closing) await sleep3(Math.round(SELF_REDELIVERY_PAUSE_MS * scale));
      await askAgain(id);
    }),
    ...o.maxPayloadBytes === void 0 ? {} : { maxPayloadBytes: o.maxPayloadBytes },
    ...o.bodyReadTimeoutMs === void 0 ? {} : { bodyReadTimeoutMs: o.bodyReadTimeoutMs }
  });
  await new Promise((resolve2, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve2();
    });
  });
  const port = server.address().port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  const redeliver = async () => {
    try {
      const done = await redeliverFailed(bot.appOctokit, { sinceMs: config.redeliverSinceMs });
      log.note("redeliver", {
        listed: done.listed,
        failed: done.failed,
        redelivered: done.redelivered.length,
        skipped: done.skipped.length
      });
    } catch (error) {
      log.note("redeliver", { error: message(error) });
    }
  };
  const reconcile = async () => {
    try {
      const done = await reconcileOpenCheckRuns(bot, config, log, o.now);
      log.note("reconcile", { ...done });
    } catch (error) {
      log.note("reconcile", { error: message(error) });
    }
  };
  const timers = [];
  const every = (ms, sweep) => {
    if (ms === null) return;
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      void sweep().finally(() => {
        running = false;
      });
    }, ms);
    timer.unref();
    timers.push(timer);
  };
  every(config.redeliverEveryMs, redeliver);
  every(config.reconcileEveryMs, reconcile);
  log.note("start", {
    url: `http://${host}:${port}`,
    appId: config.appId,
    checkName: config.checkName,
    workflowFile: config.workflowFile,
    resumeWorkflowFile: config.resumeWorkflowFile,
    apiUrl: config.apiUrl,
    redeliverEveryMs: config.redeliverEveryMs,
    reconcileEveryMs: config.reconcileEveryMs,
    reconcileAfterMs: config.reconcileAfterMs,
    shutdownDeadlineMs: config.shutdownDeadlineMs
  });
  return {
    url: `http://${host}:${port}`,
    port,
    bot,
    server,
    work,
    reconcile,
    redeliver,
    async close() {
      closing = true;
      for (const timer of timers) clearInterval(timer);
      const closed = new Promise((resolve2) => server.close(() => resolve2()));
      server.closeIdleConnections();
      const abandoned = await work.drain(config.shutdownDeadlineMs);
      const deliveries = abandoned.filter((label) => !label.startsWith("redeliver "));
      if (deliveries.length > 0) {
        await Promise.race([
          Promise.allSettled(deliveries.map((guid) => askAgain(guid))),
          sleep3(ABANDON_REDELIVERY_MS, void 0, { ref: false })
        ]);
      }
      server.closeAllConnections();
      await closed;
      log.note("stop", {
        abandoned: abandoned.length,
        ...abandoned.length > 0 ? { deliveries: abandoned.join(" ") } : {}
      });
    }
  };
}

// src/bot/bot-command.ts
var BOT_USAGE = `usage: evidence-gate bot [--redeliver-failed [--since SPAN]]

Starts the evidence-gate GitHub App's webhook server, or (--redeliver-failed) asks GitHub to redeliver
the App's failed deliveries of the last SPAN (default: REDELIVER_SINCE, else 1h) and exits.

environment: APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET (not for --redeliver-failed), PORT (3000), HOST (127.0.0.1),
CHECK_NAME (evidence-gate), WORKFLOW_FILE (evidence-gate.yml), RESUME_WORKFLOW_FILE, GITHUB_API_URL,
REDELIVER_EVERY (10m; off), REDELIVER_SINCE (1h), RECONCILE_EVERY (10m; off), RECONCILE_AFTER (15m),
SHUTDOWN_DEADLINE (25s). See docs/bot.md.
`;
function parseFlags(argv) {
  let redeliver = false;
  let sinceMs = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--redeliver-failed") redeliver = true;
    else if (arg === "--since" || arg.startsWith("--since=")) {
      const text = arg === "--since" ? argv[++i] : arg.slice("--since=".length);
      const ms = text === void 0 ? null : parseSpan(text);
      if (ms === null || ms === 0)
        return `--since ${JSON.stringify(text ?? "")} is not a period such as 30m, 1h or 2d`;
      sinceMs = ms;
    } else return `unknown flag ${JSON.stringify(arg)}`;
  }
  if (sinceMs !== null && !redeliver) return "--since goes with --redeliver-failed";
  return { redeliver, sinceMs };
}
async function runBotCommand(argv, io) {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.out.write(BOT_USAGE);
    return 0;
  }
  const flags = parseFlags(argv);
  if (typeof flags === "string") {
    io.err.write(`evidence-gate bot: ${flags}

${BOT_USAGE}`);
    return 64;
  }
  let config;
  try {
    config = readBotConfig(io.env, { receives: !flags.redeliver });
  } catch (error) {
    if (!(error instanceof BotConfigError)) throw error;
    io.err.write(`evidence-gate bot: ${error.message}
`);
    return 64;
  }
  if (flags.redeliver) {
    const log = botLogFor(config, (line) => void io.out.write(line));
    const { appOctokit } = createBotApp(config, log);
    try {
      const sweep = await redeliverFailed(appOctokit, { sinceMs: flags.sinceMs ?? config.redeliverSinceMs });
      log.note("redeliver", {
        listed: sweep.listed,
        failed: sweep.failed,
        redelivered: sweep.redelivered.length,
        skipped: sweep.skipped.length
      });
      for (const why of sweep.skipped) io.err.write(`evidence-gate bot: not redelivered: ${why}
`);
      return 0;
    } catch (error) {
      io.err.write(
        `evidence-gate bot: listing the App's deliveries failed: ${error instanceof Error ? error.message : String(error)}
`
      );
      return 1;
    }
  }
  let running;
  try {
    running = await startBot(config, { write: (line) => void io.out.write(line) });
  } catch (error) {
    const code = error.code;
    if (code !== "EADDRINUSE" && code !== "EACCES" && code !== "EADDRNOTAVAIL") throw error;
    const why = code === "EADDRINUSE" ? "is already in use by another process" : code === "EACCES" ? "may not be bound by this user (ports under 1024 need privileges)" : "is not an address of this machine";
    io.err.write(
      `evidence-gate bot: PORT / HOST: ${config.host}:${config.port} ${why}; set PORT (and HOST) to a free address
`
    );
    return 64;
  }
  await new Promise((resolve2) => {
    if (io.signal !== void 0) {
      if (io.signal.aborted) resolve2();
      else io.signal.addEventListener("abort", () => resolve2(), { once: true });
      return;
    }
    process.once("SIGINT", () => resolve2());
    process.once("SIGTERM", () => resolve2());
  });
  await running.close();
  if (io.signal === void 0) {
    setTimeout(() => process.exit(0), 1e3).unref();
  }
  return 0;
}
export {
  BOT_USAGE,
  runBotCommand
};
