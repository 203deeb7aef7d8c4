/* libxml2, loaded when the first experiment.xml is read (dlopen), not
 * when profconv starts: with the ICU and C++ libraries it brings, linking
 * it made every run of profconv start three times slower (18 against
 * 6 ms here), for the one input format that needs it. The importer
 * calls libxml2 by its own names: the macros below turn each name into
 * the pointer pc_libxml_load found. Include this header after libxml2's
 * and before any call. */
#ifndef PC_HPCTOOLKIT_LEGACY_LIBXML_H
#define PC_HPCTOOLKIT_LEGACY_LIBXML_H

#include "pc.h"

#include <libxml/parser.h>
#include <libxml/xmlreader.h>

/* every libxml2 function the importer (and its fuzz target) calls */
#define PC_LIBXML_FUNCS(X)                                                   \
	X(xmlCreatePushParserCtxt) X(xmlCtxtUseOptions) X(xmlParseChunk)     \
	X(xmlStopParser) X(xmlFreeDoc) X(xmlFreeParserCtxt)                  \
	X(xmlSetGenericErrorFunc) X(xmlSetStructuredErrorFunc)               \
	X(xmlReaderForIO) X(xmlFreeTextReader) X(xmlTextReaderRead)          \
	X(xmlTextReaderNodeType) X(xmlTextReaderDepth)                       \
	X(xmlTextReaderIsEmptyElement) X(xmlTextReaderConstLocalName)        \
	X(xmlTextReaderConstValue) X(xmlTextReaderMoveToAttribute)           \
	X(xmlTextReaderMoveToNextAttribute) X(xmlTextReaderMoveToElement)    \
	X(xmlTextReaderCurrentNode) X(xmlTextReaderGetParserLineNumber)      \
	X(xmlTextReaderSetStructuredErrorHandler) X(xmlGetLineNo)

struct pc_libxml {
#define PC_LIBXML_PTR(f) __typeof__(f) *p_##f;
	PC_LIBXML_FUNCS(PC_LIBXML_PTR)
#undef PC_LIBXML_PTR
};
extern struct pc_libxml pc_libxml;

/* Loads libxml2 once (any thread): 0, or -1 with ERR saying what is
 * missing. */
int pc_libxml_load(struct pc_err *err);

#define xmlCreatePushParserCtxt (pc_libxml.p_xmlCreatePushParserCtxt)
#define xmlCtxtUseOptions (pc_libxml.p_xmlCtxtUseOptions)
#define xmlParseChunk (pc_libxml.p_xmlParseChunk)
#define xmlStopParser (pc_libxml.p_xmlStopParser)
#define xmlFreeDoc (pc_libxml.p_xmlFreeDoc)
#define xmlFreeParserCtxt (pc_libxml.p_xmlFreeParserCtxt)
#define xmlSetGenericErrorFunc (pc_libxml.p_xmlSetGenericErrorFunc)
#define xmlSetStructuredErrorFunc (pc_libxml.p_xmlSetStructuredErrorFunc)
#define xmlReaderForIO (pc_libxml.p_xmlReaderForIO)
#define xmlFreeTextReader (pc_libxml.p_xmlFreeTextReader)
#define xmlTextReaderRead (pc_libxml.p_xmlTextReaderRead)
#define xmlTextReaderNodeType (pc_libxml.p_xmlTextReaderNodeType)
#define xmlTextReaderDepth (pc_libxml.p_xmlTextReaderDepth)
#define xmlTextReaderIsEmptyElement (pc_libxml.p_xmlTextReaderIsEmptyElement)
#define xmlTextReaderConstLocalName (pc_libxml.p_xmlTextReaderConstLocalName)
#define xmlTextReaderConstValue (pc_libxml.p_xmlTextReaderConstValue)
#define xmlTextReaderMoveToAttribute (pc_libxml.p_xmlTextReaderMoveToAttribute)
#define xmlTextReaderMoveToNextAttribute \
	(pc_libxml.p_xmlTextReaderMoveToNextAttribute)
#define xmlTextReaderMoveToElement (pc_libxml.p_xmlTextReaderMoveToElement)
#define xmlTextReaderCurrentNode (pc_libxml.p_xmlTextReaderCurrentNode)
#define xmlTextReaderGetParserLineNumber \
	(pc_libxml.p_xmlTextReaderGetParserLineNumber)
#define xmlTextReaderSetStructuredErrorHandler \
	(pc_libxml.p_xmlTextReaderSetStructuredErrorHandler)
#define xmlGetLineNo (pc_libxml.p_xmlGetLineNo)

#endif
