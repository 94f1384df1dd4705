# pcoll_count_matches(<var> <regex> <text>): how many times regex matches
# text, for the scripts that check a program's output.  A ';' in text counts
# as ',' (CMake would split the matches into list items at ';').
function(pcoll_count_matches var regex text)
  string(REPLACE ";" "," text "${text}")
  string(REGEX MATCHALL "${regex}" found "${text}")
  list(LENGTH found n)
  set(${var} ${n} PARENT_SCOPE)
endfunction()
